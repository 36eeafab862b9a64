"""/on-call calendars renamed and deleted, single shifts edited and deleted, over HTTP: the
API's rules (the default calendar and one a policy names stay; members only; the end after
the start) shown beside the fields; roles; other teams' objects are 404s; audit entries."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import audit_entries, person
from tests.factories.api import Api, data
from tests.factories.delivery import advance, create_member
from tests.factories.hostile_times import HOSTILE_TIMES
from watchpost.oncall.models import OnCallCalendar, OnCallEvent

ON_CALLS = "/api/v2/on-calls"


async def _calendars(app: FastAPI) -> dict[int, str]:
    async with app.state.ctx.db.read_sessions() as db:
        return {c.id: c.name for c in await db.scalars(select(OnCallCalendar))}


async def _events(app: FastAPI) -> list[OnCallEvent]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(OnCallEvent).order_by(OnCallEvent.id)))


async def _console_actions(app: FastAPI, team: str = "acme") -> list[str]:
    entries = await audit_entries(app, team)
    return [e.action for e in entries if e.actor_kind == "person" and e.action != "session.created"]


async def _event(api: Api, start: str, end: str, *users: str, calendar: str = "default") -> int:
    body = {"starts_at": start, "ends_at": end, "users": list(users)}
    answer = await api.post(f"{ON_CALLS}/{calendar}/events", body)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


async def test_a_calendar_is_renamed_then_deleted_after_a_confirmation(
    app: FastAPI, api: Api
) -> None:
    nights = data(await api.post(ON_CALLS, {"name": "Nights"}), 201)
    path = f"/on-call/{nights['id']}"
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        page = await admin.get(path)
        assert f'href="{path}/edit"' in page.text
        settings = await admin.get(f"{path}/edit")
        assert settings.status_code == 200 and 'value="Nights"' in settings.text
        assert f'action="{path}/delete"' in settings.text
        blank = await admin.post(f"{path}/edit", data={"csrf": csrf, "name": "   "})
        assert blank.status_code == 422 and 'id="name-error"' in blank.text
        renamed = await admin.post(f"{path}/edit", data={"csrf": csrf, "name": " Night  shift "})
        assert renamed.status_code == 303
        assert (await _calendars(app))[int(nights["id"])] == "Night shift"
        asked = await admin.post(f"{path}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the calendar" in asked.text
        assert int(nights["id"]) in await _calendars(app)
        done = await admin.post(f"{path}/delete", data={"csrf": csrf, "confirm": "yes"})
        assert done.status_code == 303 and done.headers["location"] == "/on-call?done=deleted"
        assert (await admin.get(path)).status_code == 404
    assert list((await _calendars(app)).values()) == ["Primary"]
    assert await _console_actions(app) == ["on_call_calendar.renamed", "on_call_calendar.deleted"]
    [entry] = [e for e in await audit_entries(app) if e.action == "on_call_calendar.renamed"]
    assert entry.details == {"from": "Nights", "to": "Night shift"}


async def test_the_default_calendar_and_one_a_policy_names_are_kept(app: FastAPI, api: Api) -> None:
    named = data(await api.post(ON_CALLS, {"name": "Named"}), 201)
    member = {"type": "current_on_call", "id": int(named["id"])}
    step = {"type": "escalation", "step_members": [member]}
    policy = data(await api.post("/api/v3/policies", {"name": "Rota", "steps": [step]}), 201)
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        default = await admin.get("/on-call/default/edit")
        assert "cannot be deleted" in default.text and "/delete" not in default.text
        refused = await admin.post("/on-call/default/delete", data={"csrf": csrf, "confirm": "yes"})
        assert refused.status_code == 422
        assert "The default on-call calendar cannot be deleted" in refused.text
        page = await admin.get(f"/on-call/{named['id']}/edit")
        assert f'<a href="/policies/{policy["id"]}">Rota</a>' in page.text
        assert f'action="/on-call/{named["id"]}/delete"' not in page.text
        conflict = await admin.post(
            f"/on-call/{named['id']}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert conflict.status_code == 409 and "change the policy first" in conflict.text
    assert sorted((await _calendars(app)).values()) == ["Named", "Primary"]
    assert await _console_actions(app) == []


async def test_only_admins_change_calendars_and_another_teams_is_a_404(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    theirs = data(await other_api.post(ON_CALLS, {"name": "Theirs"}), 201)
    mine = data(await api.post(ON_CALLS, {"name": "Mine"}), 201)
    async with person(app, "rita@example.com", "responder") as (responder, csrf):
        page = await responder.get(f"/on-call/{mine['id']}")
        assert page.status_code == 200 and "/edit" not in page.text
        assert (await responder.get(f"/on-call/{mine['id']}/edit")).status_code == 403
        for action, form in (("edit", {"name": "X"}), ("delete", {"confirm": "yes"})):
            answer = await responder.post(
                f"/on-call/{mine['id']}/{action}", data={"csrf": csrf, **form}
            )
            assert answer.status_code == 403
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        assert (await admin.get(f"/on-call/{theirs['id']}/edit")).status_code == 404
        assert (await admin.get("/on-call/abc/edit")).status_code == 404
        for action, form in (("edit", {"name": "X"}), ("delete", {"confirm": "yes"})):
            answer = await admin.post(
                f"/on-call/{theirs['id']}/{action}", data={"csrf": csrf, **form}
            )
            assert answer.status_code == 404
    assert sorted((await _calendars(app)).values()) == ["Mine", "Primary", "Primary", "Theirs"]
    assert await _console_actions(app) == []
    assert await _console_actions(app, "globex") == []


async def test_a_shift_is_edited_beside_its_fields_and_deleted(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Early")
    await create_member(app, "acme", "bob@example.com", "Bob Late")
    shift = await _event(api, "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "ann@example.com")
    edit = f"/on-call/default/events/{shift}/edit"
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        calendar = await admin.get("/on-call/default")
        assert f'/events/{shift}/edit"' in calendar.text and 'id="shifts"' in calendar.text
        form = await admin.get(edit)
        assert form.status_code == 200 and 'value="ann@example.com" checked' in form.text
        assert "Bob Late (bob@example.com)" in form.text and 'value="bob@example.com">' in form.text
        assert 'value="2026-01-02T00:00"' in form.text
        wrong = await admin.post(
            edit,
            data={
                "csrf": csrf,
                "users": "nobody@example.com",
                "starts_at": "2026-01-05T00:00",
                "ends_at": "2026-01-04T00:00",
            },
        )
        assert wrong.status_code == 422
        assert 'id="users-error"' in wrong.text and 'id="ends_at-error"' in wrong.text
        assert 'value="nobody@example.com" checked' in wrong.text  # kept, to untick
        assert "nobody@example.com (not a member of the team)" in wrong.text
        [unchanged] = await _events(app)
        assert unchanged.users == ["ann@example.com"]
        saved = await admin.post(
            edit,
            data={
                "csrf": csrf,
                "users": "bob@example.com\nann@example.com",
                "starts_at": "2026-01-04T06:00",
                "ends_at": "2026-01-05T06:00",
            },
        )
        assert saved.status_code == 303, saved.text[:500]
        [event] = await _events(app)
        assert event.users == ["bob@example.com", "ann@example.com"]
        assert event.starts_at == datetime(2026, 1, 4, 6, tzinfo=UTC)
        assert event.ends_at == datetime(2026, 1, 5, 6, tzinfo=UTC)
        delete = f"/on-call/default/events/{shift}/delete"
        asked = await admin.post(delete, data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the shift" in asked.text
        assert len(await _events(app)) == 1
        done = await admin.post(delete, data={"csrf": csrf, "confirm": "yes"})
        assert done.status_code == 303
    assert await _events(app) == []
    actions = await _console_actions(app)
    assert actions == ["on_call.event_updated", "on_call.event_deleted"]
    [entry] = [e for e in await audit_entries(app) if e.action == "on_call.event_updated"]
    assert entry.details["before"]["users"] == ["ann@example.com"]


@pytest.mark.parametrize(
    "value", [value for value in HOSTILE_TIMES if len(value) < 100] + ["9999-12-31T23:59"]
)
async def test_a_time_that_cannot_be_read_or_held_is_shown_beside_its_field(
    app: FastAPI, api: Api, value: str
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Early")
    shift = await _event(api, "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "ann@example.com")
    edit = f"/on-call/default/events/{shift}/edit"
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        for field in ("starts_at", "ends_at"):
            times = {"starts_at": "2026-01-04T06:00", "ends_at": "2026-01-05T06:00", field: value}
            sent = {"csrf": csrf, "users": "ann@example.com", **times}
            wrong = await admin.post(edit, data=sent)
            assert wrong.status_code == 422, (field, value, wrong.text[:300])
            assert f'id="{field}-error"' in wrong.text
    [unchanged] = await _events(app)
    assert unchanged.starts_at == datetime(2026, 1, 2, tzinfo=UTC)
    assert unchanged.ends_at == datetime(2026, 1, 3, tzinfo=UTC)


async def test_a_running_shift_keeps_its_start_when_only_its_people_change(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    await create_member(app, "acme", "bob@example.com", "Bob")
    shift = await _event(api, "2026-01-01T08:30:15Z", "2026-01-04T00:00:00Z", "ann@example.com")
    advance(app, 2 * 86_400)  # the shift started before today
    edit = f"/on-call/default/events/{shift}/edit"
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        form = await admin.get(edit)
        typed = {"starts_at": "2026-01-01T08:30", "ends_at": "2026-01-04T00:00"}
        assert all(f'value="{v}"' in form.text for v in typed.values())
        moved = await admin.post(
            edit,
            data={
                "csrf": csrf,
                "users": "bob@example.com",
                **typed,
                "starts_at": "2026-01-01T09:00",
            },
        )
        assert moved.status_code == 422 and 'id="starts_at-error"' in moved.text
        saved = await admin.post(edit, data={"csrf": csrf, "users": "bob@example.com", **typed})
        assert saved.status_code == 303
    [event] = await _events(app)
    assert event.users == ["bob@example.com"]
    assert event.starts_at == datetime(2026, 1, 1, 8, 30, 15, tzinfo=UTC)  # kept exactly


async def test_only_admins_change_shifts_and_another_teams_is_a_404(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    await create_member(app, "globex", "x@example.com", "X")
    mine = await _event(api, "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "ann@example.com")
    theirs_calendar = data(await other_api.post(ON_CALLS, {"name": "Theirs"}), 201)
    theirs = await _event(
        other_api,
        "2026-01-02T00:00:00Z",
        "2026-01-03T00:00:00Z",
        "x@example.com",
        calendar=str(theirs_calendar["id"]),
    )
    body = {
        "users": "ann@example.com",
        "starts_at": "2026-01-02T00:00",
        "ends_at": "2026-01-02T12:00",
    }
    async with person(app, "rita@example.com", "responder") as (responder, csrf):
        page = await responder.get("/on-call/default")
        assert f"/events/{mine}/edit" not in page.text
        assert (await responder.get(f"/on-call/default/events/{mine}/edit")).status_code == 403
        for action in ("edit", "delete"):
            answer = await responder.post(
                f"/on-call/default/events/{mine}/{action}",
                data={"csrf": csrf, "confirm": "yes", **body},
            )
            assert answer.status_code == 403
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        for calendar in (str(theirs_calendar["id"]), "default"):
            path = f"/on-call/{calendar}/events/{theirs}"
            assert (await admin.get(f"{path}/edit")).status_code == 404
            for action in ("edit", "delete"):
                answer = await admin.post(
                    f"{path}/{action}", data={"csrf": csrf, "confirm": "yes", **body}
                )
                assert answer.status_code == 404
    events = await _events(app)
    assert [(e.users, e.ends_at.hour) for e in events] == [
        (["ann@example.com"], 0),
        (["x@example.com"], 0),
    ]
    assert await _console_actions(app) == []
