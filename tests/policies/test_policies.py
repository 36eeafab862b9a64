"""Escalation policies: the hosted API's /api/v3/policies, and their steps run for real
(e-mail to aiosmtpd, webhooks to a local receiver) on the injected clock."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import (
    advance,
    configure,
    create_member,
    create_webhook,
    deliverer_of,
    receiver,
    smtp_server,
)
from tests.factories.incidents import create_reported_incident

POLICIES = "/api/v3/policies"
INCIDENTS = "/api/v2/incidents"


def escalation(wait: int, *members: dict[str, Any]) -> dict[str, Any]:
    return {"type": "escalation", "wait_before": wait, "step_members": list(members)}


async def test_policies_are_stored_and_shown_as_the_hosted_api_does(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    daytime = data(await api.post(POLICIES, {"name": "Daytime"}), 201)
    steps = [
        escalation(0, {"type": "entire_team"}),
        escalation(600, {"type": "user", "email": "ANN@example.com"}),
        {
            "type": "time_branching",
            "timezone": "Prague",
            "days": ["mon", "tue"],
            "time_from": "09:00",
            "time_to": "17:00",
            "policy_id": int(daytime["id"]),
        },
    ]
    created = data(
        await api.post(
            POLICIES, {"name": "On call", "repeat_count": 2, "repeat_delay": 900, "steps": steps}
        ),
        201,
    )
    assert created["type"] == "policy"
    attributes = created["attributes"]
    assert attributes["steps"] == steps
    assert (attributes["repeat_count"], attributes["repeat_delay"]) == (2, 900)
    assert attributes["team_name"] == "acme" and len(attributes["incident_token"]) >= 20
    path = f"{POLICIES}/{created['id']}"
    assert data(await api.get(path)) == created
    changed = data(await api.patch(path, {"steps": steps[:1]}))
    assert (
        changed["attributes"]["steps"] == steps[:1] and changed["attributes"]["name"] == "On call"
    )
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404


async def test_members_must_name_the_teams_own(api: Api, other_api: Api) -> None:
    theirs = await create_webhook(other_api, "https://hooks.example.com/x")
    body = {
        "name": "x",
        "steps": [
            escalation(0, {"type": "user", "email": "nobody@example.com"}),
            escalation(0, {"type": "webhook", "id": int(theirs["id"])}),
        ],
    }
    _, fields = errors(await api.post(POLICIES, body))
    assert fields == ["steps[0].step_members[0]", "steps[1].step_members[0]"]
    _, fields = errors(await api.post(POLICIES, {"name": "x", "steps": [{"type": "nope"}]}))
    assert fields and fields[0].startswith("steps")
    _, fields = errors(await api.post(POLICIES, {"steps": []}))
    assert fields == ["name"]


async def test_steps_run_in_turn_until_someone_acknowledges(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    await create_member(app, "acme", "bob@example.com", "Bob")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        async with receiver() as hook:
            webhook = await create_webhook(
                api,
                hook.url(),
                on_incident_started=False,
                on_incident_resolved=False,
                on_incident_acknowledged=False,
            )
            policy = data(
                await api.post(
                    POLICIES,
                    {
                        "name": "Ops",
                        "steps": [
                            escalation(0, {"type": "user", "email": "ann@example.com"}),
                            escalation(300, {"type": "webhook", "id": int(webhook["id"])}),
                            escalation(300, {"type": "entire_team"}),
                        ],
                    },
                ),
                201,
            )
            incident = await create_reported_incident(api, email=False, policy_id=int(policy["id"]))
            worker = deliverer_of(app)
            await worker.tick()  # step 1: Ann
            await worker.tick()  # her e-mail is sent
            assert [m["To"] for m in mailbox.messages] == ["ann@example.com"]
            assert hook.received == []
            advance(app, 299)
            await worker.tick()
            assert hook.received == []  # not yet
            advance(app, 2)
            await worker.tick()  # step 2: the webhook
            await worker.tick()
            assert [r.json()["event"] for r in hook.at("/hook")] == ["started"]
            path = f"{INCIDENTS}/{incident['id']}"
            assert (await api.post(f"{path}/acknowledge", {})).status_code == 200
            advance(app, 301)
            await worker.tick()
            await worker.tick()
            assert len(mailbox.messages) == 1  # step 3 never ran: someone is on it
            assert (await api.post(f"{path}/resolve", {})).status_code == 200
            await worker.tick()
            await worker.tick()
            # whoever the policy told hears of the resolution
            assert [r.json()["event"] for r in hook.at("/hook")] == ["started", "resolved"]
            assert [m["Subject"].split(":")[0] for m in mailbox.messages] == ["Down", "Resolved"]


async def test_a_policy_repeats_when_nobody_acknowledges(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        webhook = await create_webhook(api, hook.url(), on_incident_started=False)
        policy = data(
            await api.post(
                POLICIES,
                {
                    "name": "Loud",
                    "repeat_count": 2,
                    "repeat_delay": 600,
                    "steps": [escalation(0, {"type": "webhook", "id": int(webhook["id"])})],
                },
            ),
            201,
        )
        await create_reported_incident(api, email=False, policy_id=int(policy["id"]))
        worker = deliverer_of(app)
        for _ in range(4):
            await worker.tick()
            await worker.tick()
            advance(app, 601)
        assert len(hook.at("/hook")) == 3  # the first round and two repeats


async def test_an_incident_without_a_policy_runs_none(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        webhook = await create_webhook(api, hook.url(), on_incident_started=False)
        await api.post(
            POLICIES,
            {"name": "x", "steps": [escalation(0, {"type": "webhook", "id": int(webhook["id"])})]},
        )
        await create_reported_incident(api)
        await deliverer_of(app).tick()
        assert hook.received == []


async def test_a_monitor_going_down_runs_its_policy(app: FastAPI, api: Api) -> None:
    from tests.factories.engine import engine_of, recording_server
    from tests.factories.monitors import create_monitor

    async with recording_server() as site, receiver() as hook:
        site.status["/down"] = 500
        webhook = await create_webhook(api, hook.url(), on_incident_started=False)
        policy = data(
            await api.post(
                POLICIES,
                {
                    "name": "Shop",
                    "steps": [escalation(0, {"type": "webhook", "id": int(webhook["id"])})],
                },
            ),
            201,
        )
        monitor = await create_monitor(
            api,
            url=site.url("/down"),
            confirmation_period=0,
            email=False,
            policy_id=int(policy["id"]),
        )
        assert (
            monitor["attributes"]["policy_id"] == policy["id"]
        )  # a string, as the provider reads it
        await engine_of(app).tick()
        worker = deliverer_of(app)
        await worker.tick()
        await worker.tick()
        [request] = hook.at("/hook")
    assert request.json()["data"]["attributes"]["escalation_policy_id"] == int(policy["id"])
    path = f"/api/v2/monitors/{monitor['id']}"
    assert (await api.delete(f"{POLICIES}/{policy['id']}")).status_code == 204
    assert data(await api.get(path))["attributes"]["policy_id"] is None


async def test_a_monitor_or_heartbeat_names_only_its_teams_policy(api: Api, other_api: Api) -> None:
    theirs = data(await other_api.post(POLICIES, {"name": "Theirs"}), 201)
    for path, body in (
        ("/api/v2/monitors", {"url": "https://example.com"}),
        ("/api/v2/heartbeats", {"name": "backup"}),
    ):
        _, fields = errors(await api.post(path, {**body, "policy_id": int(theirs["id"])}))
        assert fields == ["policy_id"], path
