"""/on-call over HTTP: an override taken in the console changes who an escalation step
e-mails (aiosmtpd, the delivery worker on the test's clock); who is on call now, next and
day by day; rotations; roles, other teams' calendars, errors beside fields, audit entries."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import audit_entries, person, user_id
from tests.factories.api import Api, data
from tests.factories.delivery import configure, create_member, deliverer_of, smtp_server
from tests.factories.incidents import create_reported_incident
from watchpost.oncall.models import OnCallEvent

ON_CALLS = "/api/v2/on-calls"


async def _event(api: Api, start: str, end: str, *users: str, calendar: str = "default") -> None:
    body = {"starts_at": start, "ends_at": end, "users": list(users)}
    answer = await api.post(f"{ON_CALLS}/{calendar}/events", body)
    assert answer.status_code == 201, answer.text


async def _events(app: FastAPI) -> list[OnCallEvent]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(OnCallEvent).order_by(OnCallEvent.id)))


async def _console_actions(app: FastAPI, team: str = "acme") -> list[str]:
    entries = await audit_entries(app, team)
    return [e.action for e in entries if e.actor_kind == "person" and e.action != "session.created"]


async def test_an_override_taken_in_the_console_changes_who_is_emailed(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Regular")
    await _event(api, "2026-01-01T00:00:00Z", "2026-01-08T00:00:00Z", "ann@example.com")
    step = {"type": "escalation", "step_members": [{"type": "current_on_call", "id": None}]}
    policy = data(await api.post("/api/v3/policies", {"name": "Rota", "steps": [step]}), 201)
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        worker = deliverer_of(app)
        await create_reported_incident(api, email=False, policy_id=int(policy["id"]))
        await worker.tick()
        await worker.tick()
        assert [m["To"] for m in mailbox.messages] == ["ann@example.com"]
        async with person(app, "bob@example.com", "responder", name="Bob Stand-in") as (bob, csrf):
            page = await bob.get("/on-call/default")
            assert page.status_code == 200
            assert "Take this shift" in page.text and 'name="user"' in page.text
            assert re.search(
                r"On call now</dt><dd><a href=\"/team/people/\d+\">Ann Regular", page.text
            )
            taken = await bob.post(
                "/on-call/default/overrides",
                data={"csrf": csrf, "starts_at": "2026-01-01T00:00", "ends_at": "2026-01-02T00:00"},
            )
            assert taken.status_code == 303, taken.text[:500]
            after = await bob.get("/on-call/default")
            listed = await bob.get("/on-call")
        assert 'Bob Stand-in</a> <span class="override-tag">(override)' in after.text
        assert "Bob Stand-in" in listed.text and "Ann Regular" in listed.text  # now, and next
        await create_reported_incident(api, email=False, name="Again", policy_id=int(policy["id"]))
        await worker.tick()
        await worker.tick()
        assert [m["To"] for m in mailbox.messages] == ["ann@example.com", "bob@example.com"]
    [override] = [e for e in await _events(app) if e.override]
    assert override.users == ["bob@example.com"]
    [entry] = [e for e in await audit_entries(app) if e.action == "on_call.override_created"]
    assert entry.actor == "bob@example.com" and entry.details["user"] == "bob@example.com"


async def test_only_admins_put_someone_else_on_call_and_viewers_nobody(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    theirs = data(await other_api.post(ON_CALLS, {"name": "Theirs"}), 201)
    await create_member(app, "acme", "ann@example.com", "Ann")
    ann = await user_id(app, "ann@example.com")
    shift = {"starts_at": "2026-01-02T00:00", "ends_at": "2026-01-03T00:00"}
    async with person(app, "vera@example.com", "viewer") as (viewer, csrf):
        page = await viewer.get("/on-call/default")
        assert page.status_code == 200 and "Take this shift" not in page.text
        refused = await viewer.post("/on-call/default/overrides", data={"csrf": csrf, **shift})
        assert refused.status_code == 403
    async with person(app, "rita@example.com", "responder") as (responder, csrf):
        for_ann = await responder.post(
            "/on-call/default/overrides", data={"csrf": csrf, "user": str(ann), **shift}
        )
        assert for_ann.status_code == 403
        rotation = await responder.post(
            "/on-call/default/rotation",
            data={"csrf": csrf, "users": "rita@example.com", "rotation_length": "1"},
        )
        assert rotation.status_code == 403
        made = await responder.post("/on-call/new", data={"csrf": csrf, "name": "Mine"})
        assert made.status_code == 403
    assert await _events(app) == []
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        other = await admin.get(f"/on-call/{theirs['id']}")
        into = await admin.post(
            f"/on-call/{theirs['id']}/overrides", data={"csrf": csrf, "user": str(ann), **shift}
        )
        assert other.status_code == into.status_code == 404
        rotation = await admin.post(
            f"/on-call/{theirs['id']}/rotation",
            data={"csrf": csrf, "users": "ann@example.com", "rotation_length": "1"},
        )
        assert rotation.status_code == 404
        their_event = {**{k: v + ":00Z" for k, v in shift.items()}, "users": ["x@example.com"]}
        await create_member(app, "globex", "x@example.com", "X")
        made = await other_api.post(f"{ON_CALLS}/{theirs['id']}/events", their_event)
        assert made.status_code == 201, made.text
        removed = await admin.post(
            f"/on-call/{theirs['id']}/overrides/{made.json()['id']}/delete",
            data={"csrf": csrf, "confirm": "yes"},
        )
        mine_path = await admin.post(
            f"/on-call/default/overrides/{made.json()['id']}/delete",
            data={"csrf": csrf, "confirm": "yes"},
        )
        assert removed.status_code == mine_path.status_code == 404
        assert "Theirs" not in (await admin.get("/on-call")).text
        done = await admin.post(
            "/on-call/default/overrides", data={"csrf": csrf, "user": str(ann), **shift}
        )
        assert done.status_code == 303
    [event] = [e for e in await _events(app) if e.users != ["x@example.com"]]
    assert event.users == ["ann@example.com"] and event.override
    assert len(await _events(app)) == 2  # theirs stays
    assert await _console_actions(app) == ["on_call.override_created"]


async def test_an_override_with_bad_times_is_refused_beside_its_fields(app: FastAPI) -> None:
    async with person(app, "rita@example.com", "responder") as (responder, csrf):
        backwards = await responder.post(
            "/on-call/default/overrides",
            data={"csrf": csrf, "starts_at": "2026-01-03T00:00", "ends_at": "2026-01-02T00:00"},
        )
        past = await responder.post(
            "/on-call/default/overrides",
            data={"csrf": csrf, "starts_at": "2025-12-30T00:00", "ends_at": "not a time"},
        )
    assert backwards.status_code == past.status_code == 422
    assert 'id="ends_at-error"' in backwards.text
    assert 'value="2026-01-03T00:00"' in backwards.text  # kept as typed
    assert 'id="starts_at-error"' in past.text and 'id="ends_at-error"' in past.text
    assert await _events(app) == []


async def test_an_own_override_is_removed_by_its_person_another_by_an_admin(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    body = {"starts_at": "2026-01-02T00:00:00Z", "ends_at": "2026-01-03T00:00:00Z"}
    async with person(app, "rita@example.com", "responder") as (rita, csrf):
        for email in ("ann@example.com", "rita@example.com"):
            override = {**body, "users": [email], "override": True}
            assert (await api.post(f"{ON_CALLS}/default/events", override)).status_code == 201
        anns, ritas = await _events(app)
        page = await rita.get("/on-call/default")
        assert f"/overrides/{ritas.id}/delete" in page.text
        assert f"/overrides/{anns.id}/delete" not in page.text
        refused = await rita.post(
            f"/on-call/default/overrides/{anns.id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert refused.status_code == 403
        asked = await rita.post(
            f"/on-call/default/overrides/{ritas.id}/delete", data={"csrf": csrf}
        )
        assert asked.status_code == 200 and "Remove the override" in asked.text
        done = await rita.post(
            f"/on-call/default/overrides/{ritas.id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert done.status_code == 303
    assert [e.id for e in await _events(app)] == [anns.id]
    assert await _console_actions(app) == ["on_call.override_removed"]


async def test_a_rotation_set_in_the_form_fills_the_coming_weeks(app: FastAPI) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Early")
    await create_member(app, "acme", "bob@example.com", "Bob Late")
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        rotation: dict[str, Any] = {
            "csrf": csrf,
            "users": "ann@example.com\nbob@example.com",
            "rotation_length": "1",
            "rotation_interval": "day",
            "start_rotations_at": "2026-01-01T00:00",
            "end_rotations_at": "2026-02-01T00:00",
            "timezone": "UTC",
            "working_hours": "",
        }
        wrong = await admin.post(
            "/on-call/default/rotation",
            data={**rotation, "users": "ann@example.com\nnobody@example.com"},
        )
        assert wrong.status_code == 422 and 'id="users-error"' in wrong.text
        assert "nobody@example.com" in wrong.text
        assert await _events(app) == []
        saved = await admin.post("/on-call/default/rotation", data=rotation)
        assert saved.status_code == 303
        page = await admin.get("/on-call/default")
    assert len(await _events(app)) == 31
    days = re.findall(r'<h3 class="day-name"><time datetime="([0-9-]+)">', page.text)
    assert days[0] == "2026-01-01" and len(days) == 28
    first = page.text.split('datetime="2026-01-01"')[1].split("</ul>")[0]
    assert "Ann Early" in first and "Bob Late" not in first
    second = page.text.split('datetime="2026-01-02"')[1].split("</ul>")[0]
    assert "Bob Late" in second
    assert "ann@example.com, bob@example.com in turn, 1 day each" in page.text
    assert await _console_actions(app) == ["on_call.rotation_set"]


async def test_a_calendar_is_made_and_a_bad_id_is_a_404(app: FastAPI) -> None:
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        made = await admin.post("/on-call/new", data={"csrf": csrf, "name": "Nights"})
        assert made.status_code == 303
        page = await admin.get(made.headers["location"])
        assert page.status_code == 200 and "Nights" in page.text
        assert (await admin.get("/on-call/abc")).status_code == 404
        listed = await admin.get("/on-call")
    assert "Nights" in listed.text and "Primary" in listed.text
