"""On-call at work: a `current_on_call` escalation step e-mails whoever is on call (aiosmtpd),
and `on_call_change` webhooks reach a real receiver when the people on call change, by the
clock or by an edit, and only then."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from sqlalchemy import func, select

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
from watchpost.delivery import claims
from watchpost.delivery.models import DeliveryEvent

ON_CALLS = "/api/v2/on-calls"
POLICIES = "/api/v3/policies"


async def event(api: Api, calendar: str, start: str, end: str, *users: str) -> dict[str, Any]:
    body = {"starts_at": start, "ends_at": end, "users": list(users)}
    response = await api.post(f"{ON_CALLS}/{calendar}/events", body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


def on_call_step(calendar_id: int | None) -> dict[str, Any]:
    member = {"type": "current_on_call", "id": calendar_id}
    return {"type": "escalation", "wait_before": 0, "step_members": [member]}


async def test_a_current_on_call_step_emails_whoever_is_on_call(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    await create_member(app, "acme", "bob@example.com", "Bob")
    await event(api, "default", "2026-01-01T00:00:00Z", "2026-01-01T08:00:00Z", "ann@example.com")
    await event(api, "default", "2026-01-01T08:00:00Z", "2026-01-02T00:00:00Z", "bob@example.com")
    night = data(await api.post(ON_CALLS, {"name": "Night"}), 201)
    await event(api, night["id"], "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        policy = data(
            await api.post(POLICIES, {"name": "Rota", "steps": [on_call_step(None)]}), 201
        )
        worker = deliverer_of(app)
        await create_reported_incident(api, email=False, policy_id=int(policy["id"]))
        await worker.tick()
        await worker.tick()
        assert [m["To"] for m in mailbox.messages] == ["ann@example.com"]
        advance(app, 9 * 3600)  # Bob's turn
        await create_reported_incident(api, email=False, policy_id=int(policy["id"]))
        await worker.tick()
        await worker.tick()
        assert [m["To"] for m in mailbox.messages] == ["ann@example.com", "bob@example.com"]
        # a calendar named by id
        named = data(
            await api.post(POLICIES, {"name": "Nights", "steps": [on_call_step(int(night["id"]))]}),
            201,
        )
        await create_reported_incident(api, email=False, policy_id=int(named["id"]))
        await worker.tick()
        await worker.tick()
        assert [m["To"] for m in mailbox.messages][-1] == "ann@example.com"
        # a calendar a policy names is not deleted
        refused = await api.delete(f"{ON_CALLS}/{night['id']}")
        assert refused.status_code == 409 and str(named["id"]) in refused.json()["errors"]
        assert (await api.patch(f"{POLICIES}/{named['id']}", {"steps": []})).status_code == 200
        assert (await api.delete(f"{ON_CALLS}/{night['id']}")).status_code == 204


async def test_a_policy_names_only_its_teams_calendars(api: Api, other_api: Api) -> None:
    theirs = data(await other_api.post(ON_CALLS, {"name": "Theirs"}), 201)
    body = {"name": "x", "steps": [on_call_step(int(theirs["id"]))]}
    _, fields = errors(await api.post(POLICIES, body))
    assert fields == ["steps[0].step_members[0]"]
    mine = data(await api.post(ON_CALLS, {"name": "Mine"}), 201)
    assert (
        await api.post(POLICIES, {"name": "x", "steps": [on_call_step(int(mine["id"]))]})
    ).status_code == 201


async def _events(app: FastAPI) -> int:
    async with app.state.ctx.db.read_sessions() as session:
        count = await session.scalar(
            select(func.count()).where(DeliveryEvent.trigger_type == "on_call_change")
        )
    return int(count or 0)


async def test_on_call_change_webhooks_follow_the_people_on_call(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Lee")
    await create_member(app, "acme", "bob@example.com", "Bob")
    async with receiver() as hook:
        await create_webhook(api, hook.url(), trigger_type="on_call_change")
        await create_webhook(api, hook.url("/incidents"))  # wants incidents only
        worker = deliverer_of(app)
        ann = await event(
            api, "default", "2026-01-01T06:00:00Z", "2026-01-01T12:00:00Z", "ann@example.com"
        )
        await worker.tick()
        await worker.tick()
        assert hook.received == []  # nobody on call yet, nobody before: no change
        advance(app, 6 * 3600)  # Ann's event starts
        await worker.tick()
        await worker.tick()
        (first,) = hook.at("/hook")
        sent = first.json()
        calendar = data(await api.get(f"{ON_CALLS}/default"))
        assert sent["event"] == "changed" and sent["data"] == calendar
        assert [u["attributes"]["email"] for u in sent["included"]] == ["ann@example.com"]
        assert sent["included"][0]["attributes"]["last_name"] == "Lee"
        # nothing changes: nothing is sent, and idle passes find no work
        advance(app, 3600)
        await worker.tick()
        await worker.tick()
        async with app.state.ctx.db.read_sessions() as session:
            waiting = await claims.work_waiting(session, now=app.state.ctx.clock.now())
        assert not waiting.calendars_due
        assert len(hook.at("/hook")) == 1
        # an edit: Bob replaces Ann now
        changed = await api.patch(
            f"{ON_CALLS}/default/events/{ann['id']}", {"users": ["bob@example.com"]}
        )
        assert changed.status_code == 200
        await worker.tick()
        await worker.tick()
        assert [u["attributes"]["email"] for u in hook.at("/hook")[-1].json()["included"]] == [
            "bob@example.com"
        ]
        # an edit that changes nobody on call sends nothing
        await event(
            api, "default", "2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z", "ann@example.com"
        )
        await worker.tick()
        await worker.tick()
        assert len(hook.at("/hook")) == 2
        # the event ends: nobody on call
        advance(app, 5 * 3600)
        await worker.tick()
        await worker.tick()
        last = hook.at("/hook")[-1].json()
        assert (
            last["data"]["relationships"]["on_call_users"]["data"] == [] and last["included"] == []
        )
        assert len(hook.at("/hook")) == 3 and hook.at("/incidents") == []
        assert await _events(app) == 3


async def test_a_rotation_tells_its_team_and_only_its_team(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    await create_member(app, "acme", "bob@example.com", "Bob")
    async with receiver() as hook:
        await create_webhook(api, hook.url(), trigger_type="on_call_change")
        await create_webhook(other_api, hook.url("/globex"), trigger_type="on_call_change")
        rotation = {
            "users": ["ann@example.com", "bob@example.com"],
            "rotation_length": 8,
            "rotation_interval": "hour",
            "start_rotations_at": "2026-01-01T00:00:00Z",
            "end_rotations_at": "2026-01-02T00:00:00Z",
        }
        made = await api.post(f"{ON_CALLS}/default/rotation", rotation)
        assert made.status_code == 201, made.text
        worker = deliverer_of(app)
        seen: list[list[str]] = []
        for _ in range(4):  # the rotation itself, then each handover, then its end
            await worker.tick()
            await worker.tick()
            seen = [[u["attributes"]["email"] for u in r.json()["included"]] for r in hook.at()]
            advance(app, 8 * 3600)
        assert seen == [["ann@example.com"], ["bob@example.com"], ["ann@example.com"], []]
        assert hook.at("/globex") == []
