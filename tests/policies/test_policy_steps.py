"""Every step type of an escalation policy, run for real on the injected clock: the rules
(pure functions) and what a run does with them (webhooks to a local receiver, e-mail to
aiosmtpd, the incident's own state)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import (
    Receiver,
    advance,
    configure,
    create_member,
    create_webhook,
    deliverer_of,
    receiver,
    smtp_server,
)
from tests.factories.incidents import create_reported_incident
from watchpost.clock import FrozenClock
from watchpost.delivery import escalation
from watchpost.delivery.policy_rules import (
    due_after,
    in_time_window,
    instructions_text,
    metadata_matches,
)

POLICIES = "/api/v3/policies"
INCIDENTS = "/api/v2/incidents"
MONDAY_9_UTC = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # 10:00 in Prague


def test_a_time_window_is_read_in_its_time_zone() -> None:
    office = {"timezone": "Prague", "days": ["mon"], "time_from": "09:00", "time_to": "17:00"}
    assert in_time_window(office, MONDAY_9_UTC)
    assert not in_time_window({**office, "timezone": "Europe/London"}, MONDAY_9_UTC.replace(hour=8))
    assert not in_time_window({**office, "days": ["tue"]}, MONDAY_9_UTC)
    assert not in_time_window(office, MONDAY_9_UTC.replace(hour=16))  # 17:00 there: over
    night = {"timezone": "UTC", "days": ["mon"], "time_from": "22:00", "time_to": "06:00"}
    assert in_time_window(night, MONDAY_9_UTC.replace(hour=23))
    assert in_time_window(night, MONDAY_9_UTC.replace(day=6, hour=5))  # Tuesday, from Monday
    assert not in_time_window(night, MONDAY_9_UTC.replace(hour=5))  # Monday early: Sunday's
    assert in_time_window({"type": "time_branching"}, MONDAY_9_UTC)  # no rule: always


def test_a_step_waits_until_a_time_of_day_or_for_seconds() -> None:
    now = MONDAY_9_UTC
    assert due_after({"wait_before": 90}, now) == now.replace(minute=1, second=30)
    nine_prague = {"wait_until_time": "09:00", "wait_until_timezone": "Berlin"}
    assert due_after(nine_prague, now) == datetime(2026, 1, 6, 8, 0, tzinfo=UTC)  # tomorrow
    noon = {"wait_until_time": "12:00", "wait_until_timezone": "Etc/UTC"}
    assert due_after(noon, now) == now.replace(hour=12)
    assert due_after(None, now) == now


def test_metadata_rules_and_instructions_text() -> None:
    step = {"metadata_key": "region", "metadata_values": [{"type": "String", "value": "eu"}]}
    assert metadata_matches(step, {"region": ["us", "eu"]})
    assert not metadata_matches(step, {"region": ["us"]})
    absent = {"metadata_key": "owner", "metadata_values": [{"type": "no_value"}]}
    assert metadata_matches(absent, {}) and metadata_matches(absent, {"owner": [" "]})
    assert not metadata_matches(absent, {"owner": ["ann"]})
    text = instructions_text(
        {"instructions_comment": "Check {region} then {missing}"}, {"region": ["eu", "us"]}
    )
    assert text == "Check eu, us then {missing}"


async def _policy(api: Api, name: str, *steps: dict[str, Any], **fields: Any) -> int:
    body = {"name": name, "steps": list(steps), **fields}
    return int(data(await api.post(POLICIES, body), 201)["id"])


def _tell(webhook: dict[str, Any], wait: int = 0) -> dict[str, Any]:
    members = [{"type": "webhook", "id": int(webhook["id"])}]
    return {"type": "escalation", "wait_before": wait, "step_members": members}


async def _hooks(api: Api, hook: Receiver, *names: str) -> list[dict[str, Any]]:
    quiet = {f"on_incident_{flag}": False for flag in ("started", "acknowledged", "resolved")}
    return [await create_webhook(api, hook.url(f"/{name}"), **quiet) for name in names]


async def _run(app: FastAPI, rounds: int = 3, seconds: float = 0) -> None:
    worker = deliverer_of(app)
    for _ in range(rounds):
        await worker.tick()
        await worker.tick()
        advance(app, seconds)


def _paths(hook: Receiver) -> list[str]:
    return [r.path for r in hook.received]


async def test_time_branching_moves_to_its_policy_inside_the_window(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    clock.set(MONDAY_9_UTC)
    async with receiver() as hook:
        office, after = await _hooks(api, hook, "office", "after")
        office_policy = await _policy(api, "Office hours", _tell(office))
        branch = {
            "type": "time_branching",
            "timezone": "Prague",
            "days": ["mon", "tue", "wed", "thu", "fri"],
            "time_from": "09:00",
            "time_to": "17:00",
            "policy_id": office_policy,
        }
        main = await _policy(api, "Main", branch, _tell(after))
        await create_reported_incident(api, email=False, policy_id=main)
        await _run(app)
        assert _paths(hook) == ["/office"]
        clock.set(MONDAY_9_UTC.replace(hour=20))  # evening: the branch does not match
        await create_reported_incident(api, email=False, name="Later", policy_id=main)
        await _run(app)
        assert _paths(hook) == ["/office", "/after"]


async def test_metadata_branching_acts_on_the_incident_metadata(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        eu, rest = await _hooks(api, hook, "eu", "rest")
        eu_policy = await _policy(api, "EU", _tell(eu))
        branch = {
            "type": "metadata_branching",
            "metadata_key": "region",
            "metadata_values": [{"type": "String", "value": "eu"}],
            "policy_id": eu_policy,
        }
        quiet = {**branch, "metadata_values": [{"type": "String", "value": "test"}]}
        quiet = {**quiet, "action_type": "do_not_escalate"}
        main = await _policy(api, "Main", branch, quiet, _tell(rest))
        await create_reported_incident(
            api, email=False, policy_id=main, metadata={"region": ["eu"]}
        )
        await create_reported_incident(
            api, email=False, name="b", policy_id=main, metadata={"region": ["us"]}
        )
        await create_reported_incident(
            api, email=False, name="c", policy_id=main, metadata={"region": ["test"]}
        )
        await _run(app)
        assert sorted(_paths(hook)) == ["/eu", "/rest"]


async def test_an_instructions_step_comments_on_the_incident(app: FastAPI, api: Api) -> None:
    steps = {"type": "instructions", "instructions_comment": "Restart the {service} pods"}
    policy = await _policy(api, "Runbook", steps)
    incident = await create_reported_incident(
        api, email=False, policy_id=policy, metadata={"service": ["checkout"]}
    )
    await _run(app, rounds=1)
    listed = (await api.get(f"{INCIDENTS}/{incident['id']}/comments")).json()["data"]
    assert [c["attributes"]["content"] for c in listed] == ["Restart the checkout pods"]
    timeline = (await api.get(f"{INCIDENTS}/{incident['id']}/timeline")).json()["data"]
    assert timeline[-1]["attributes"]["by"] == "Escalation policy Runbook"


async def test_a_policy_can_resolve_or_remove_its_incident(app: FastAPI, api: Api) -> None:
    resolving = await _policy(
        api, "Auto-resolve", {"type": "resolve_remove", "action_type": "resolve_incident"}
    )
    removing = await _policy(
        api, "Drop", {"type": "resolve_remove", "action_type": "remove_incident", "wait_before": 60}
    )
    resolved = await create_reported_incident(api, email=False, policy_id=resolving)
    removed = await create_reported_incident(api, email=False, name="Noise", policy_id=removing)
    await _run(app, rounds=2, seconds=61)
    attributes = data(await api.get(f"{INCIDENTS}/{resolved['id']}"))["attributes"]
    assert attributes["status"] == "resolved"
    assert attributes["resolved_by"] == "Escalation policy Auto-resolve"
    assert (await api.get(f"{INCIDENTS}/{removed['id']}")).status_code == 404


async def test_chained_and_fallback_policies_run_and_loops_end(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        first, chained, fallback = await _hooks(api, hook, "first", "chained", "fallback")
        chained_policy = await _policy(api, "Chained", _tell(chained))
        fallback_policy = await _policy(api, "Fallback", _tell(fallback))
        step = _tell(first)
        step["step_members"].append({"type": "policy", "id": chained_policy})
        main = await _policy(
            api, "Main", step, repeat_count=1, repeat_delay=60, fallback_policy_id=fallback_policy
        )
        await create_reported_incident(api, email=False, policy_id=main)
        await _run(app, rounds=4, seconds=61)
        assert sorted(_paths(hook)) == ["/chained", "/fallback", "/first", "/first"]
        # Two policies that fall back to each other stop after escalation.MAX_HOPS moves.
        ping = await _policy(api, "Ping", _tell(first))
        pong = await _policy(api, "Pong", _tell(chained), fallback_policy_id=ping)
        await api.patch(f"{POLICIES}/{ping}", {"fallback_policy_id": pong})
        hook.received.clear()
        await create_reported_incident(api, email=False, name="Loop", policy_id=ping)
        await _run(app, rounds=escalation.MAX_HOPS + 5, seconds=1)
        assert len(hook.received) == escalation.MAX_HOPS + 1


async def test_incident_metadata_names_whom_to_tell(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    await create_member(app, "acme", "bob@example.com", "Bob")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        member = {"type": "incident_metadata", "metadata_key": "owner"}
        policy = await _policy(
            api, "Owner", {"type": "escalation", "wait_before": 0, "step_members": [member]}
        )
        metadata = {"owner": ["BOB@example.com", "stranger@example.com"]}
        await create_reported_incident(api, email=False, policy_id=policy, metadata=metadata)
        await _run(app, rounds=1)
        assert [m["To"] for m in mailbox.messages] == ["bob@example.com"]


async def test_policy_references_are_checked_and_cleared(api: Api) -> None:
    target = await _policy(api, "Target")
    _, fields = errors(await api.post(POLICIES, {"name": "x", "fallback_policy_id": 999}))
    assert fields == ["fallback_policy_id"]
    branch = {"type": "time_branching", "policy_id": 999}
    _, fields = errors(await api.post(POLICIES, {"name": "x", "steps": [branch]}))
    assert fields == ["steps[0].policy_id"]
    for zone in ("Mars/Olympus", "Berlin2"):
        bad = {"type": "time_branching", "timezone": zone, "policy_id": target}
        messages, fields = errors(await api.post(POLICIES, {"name": "x", "steps": [bad]}))
        assert fields == ["steps"] and "steps.0.timezone must be a time zone" in messages[0]
    rails = {"type": "escalation", "wait_until_time": "08:30", "wait_until_timezone": "Berlin"}
    kept = data(await api.post(POLICIES, {"name": "Rails", "steps": [rails]}), 201)
    assert kept["attributes"]["steps"] == [rails]  # read back as sent
    main = await _policy(api, "Main", fallback_policy_id=target)
    assert (await api.delete(f"{POLICIES}/{target}")).status_code == 204
    assert data(await api.get(f"{POLICIES}/{main}"))["attributes"]["fallback_policy_id"] is None
