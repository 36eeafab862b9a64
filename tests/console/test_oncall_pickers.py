"""The on-call pages' members and weeks over HTTP: a shift's people ticked among the team's
members (name and e-mail; the 1,001st of a large team found and saved), addresses typed
too, the API's words beside the people; the calendar page moved by Earlier / Later and by
`?from=` (odd values: a message and today, never a 500), its position kept through a
shift's edit and delete; the override form's member found by Find."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.picker_support import many_members, option_of, value_of
from tests.console.team_support import person
from tests.factories.api import Api
from tests.factories.console import add_person
from watchpost.oncall.models import OnCallEvent

EVENTS = "/api/v2/on-calls/default/events"
NOTE = "Showing the first 1,000 of 1,00"  # of 1,002 or 1,003: the test's people besides


async def _event(api: Api, start: str, end: str, *users: str) -> int:
    body = {"starts_at": start, "ends_at": end, "users": list(users)}
    answer = await api.post(EVENTS, body)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


async def _users(app: FastAPI) -> list[list[str]]:
    async with app.state.ctx.db.read_sessions() as db:
        return [
            list(e.users) for e in await db.scalars(select(OnCallEvent).order_by(OnCallEvent.id))
        ]


async def test_a_shifts_people_are_ticked_among_the_members_and_typed(
    app: FastAPI, api: Api
) -> None:
    await add_person(app, email="ann@example.com", role="responder", name="Ann Early")
    await add_person(app, email="bob@example.com", role="responder", name="Bob Builder")
    shift = await _event(api, "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "ann@example.com")
    edit = f"/on-call/default/events/{shift}/edit"
    times = {"starts_at": "2026-01-02T00:00", "ends_at": "2026-01-03T00:00"}
    async with person(app, "adam@example.com", "admin", name="Adam Admin") as (admin, csrf):
        form = (await admin.get(edit)).text
        assert value_of(form, "Ann Early (ann@example.com)") == "ann@example.com"
        assert value_of(form, "Bob Builder (bob@example.com)") == "bob@example.com"
        assert 'value="ann@example.com" checked' in form and 'name="find"' not in form
        assert 'id="more_users"' in form
        typed = await admin.post(
            edit,
            data={
                "csrf": csrf,
                "users": ["bob@example.com"],
                "more_users": "stranger@example.com\nANN@example.com",
                **times,
            },
        )
        assert typed.status_code == 422 and "stranger@example.com" in typed.text
        assert 'id="users-error"' in typed.text and "must name members" in typed.text
        assert "stranger@example.com\nANN@example.com</textarea>" in typed.text  # as typed
        assert await _users(app) == [["ann@example.com"]]
        saved = await admin.post(
            edit,
            data={
                "csrf": csrf,
                "users": ["bob@example.com"],
                "more_users": "ANN@example.com\nbob@example.com",
                **times,
            },
        )
        assert saved.status_code == 303
        assert saved.headers["location"].endswith("?done=saved#shifts")
    assert await _users(app) == [["bob@example.com", "ann@example.com"]]  # each once


async def test_the_1001st_member_is_found_and_put_on_a_shift(app: FastAPI, api: Api) -> None:
    await many_members(app, api.team_id, 1001)
    shift = await _event(
        api, "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "member1001@example.com"
    )
    edit = f"/on-call/default/events/{shift}/edit"
    times = {"starts_at": "2026-01-02T00:00", "ends_at": "2026-01-03T00:00"}
    async with person(app, "adam@example.com", "admin", name="Adam Admin") as (admin, csrf):
        form = (await admin.get(edit)).text
        assert NOTE in form and 'id="find-members-text"' in form
        # The shift's own person is offered (first) though beyond the first 1,000.
        assert value_of(form, "Member 1001 (member1001@example.com)") == "member1001@example.com"
        assert 'value="member1001@example.com" checked' in form
        found = (await admin.get(f"{edit}?find=member0999")).text
        assert value_of(found, "Member 0999 (member0999@example.com)") == "member0999@example.com"
        assert 'value="member1001@example.com" checked' in found and NOTE not in found
        assert found.count('name="users" value=') == 2
        saved = await admin.post(
            edit,
            data={
                "csrf": csrf,
                "find": "member0999",
                "users": ["member1001@example.com", "member0999@example.com"],
                **times,
            },
        )
        assert saved.status_code == 303
        # The override form's member: found the same way, chosen and saved.
        calendar = (await admin.get("/on-call/default")).text
        assert NOTE in calendar and 'id="find-members-text"' in calendar
        narrowed = (await admin.get("/on-call/default?find=MEMBER1001")).text
        person_id = option_of(narrowed, "Member 1001 (member1001@example.com)")
        override = await admin.post(
            "/on-call/default/overrides",
            data={
                "csrf": csrf,
                "user": person_id,
                "starts_at": "2026-01-05T00:00",
                "ends_at": "2026-01-06T00:00",
            },
        )
        assert override.status_code == 303
    assert await _users(app) == [
        ["member1001@example.com", "member0999@example.com"],
        ["member1001@example.com"],
    ]


ODD = (
    "2026-13-45",
    "2026-02-30",
    "yesterday",
    "20260301",
    "2026-W10-1",
    "+02026-03-01",
    "\u0662\u0660\u0662\u0666-\u0660\u0663-\u0660\u0661",  # Arabic-Indic digits
    "2026-03-01\x00",
    "a" * 5000,
    "9999-12-31",
    "0001-01-01",
    "2037-01-01",
)


async def test_the_weeks_move_by_from_and_odd_values_fall_back_to_today(
    app: FastAPI, api: Api
) -> None:
    await add_person(app, email="ann@example.com", role="responder", name="Ann Early")
    later = await _event(api, "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z", "ann@example.com")
    async with person(app, "adam@example.com", "admin", name="Adam Admin") as (admin, csrf):
        today = (await admin.get("/on-call/default")).text
        assert "The next four weeks" in today and f"/events/{later}/edit" not in today
        assert "?from=2026-01-29#weeks" in today  # Later: four weeks on
        assert "from=2025-12-04" in today  # Earlier: four weeks back
        moved = (await admin.get("/on-call/default?from=2026-02-26")).text
        assert "Four weeks from Thu 26 Feb 2026" in moved
        assert f"/events/{later}/edit?from=2026-02-26" in moved
        assert "from=2026-03-26" in moved and "from=2026-01-29" in moved
        assert 'value="2026-02-26"' in moved and "From today" in moved
        for odd in ODD:
            answer = await admin.get(f"/on-call/default?from={quote(odd, safe='')}")
            if "\x00" in odd:  # the app refuses NUL in any query value, in the API's shape
                assert answer.status_code == 422 and "NUL" in answer.text
                continue
            assert answer.status_code == 200, odd[:20]
            assert "The next four weeks" in answer.text, odd[:20]
            assert 'id="from-error"' in answer.text, odd[:20]
            assert "a" * 100 not in answer.text
        bad_bytes = await admin.get("/on-call/default?from=%FF%ED%A0%80")
        assert bad_bytes.status_code == 200 and 'id="from-error"' in bad_bytes.text
        far = (await admin.get("/on-call/default?from=2035-12-31")).text  # within ten years
        assert "Four weeks from" in far and 'id="from-error"' not in far
        # The position is kept through an edit and a delete.
        edit = f"/on-call/default/events/{later}/edit?from=2026-02-26"
        form = (await admin.get(edit)).text
        assert 'name="from" value="2026-02-26"' in form
        assert "?from=2026-02-26#shifts" in form  # Cancel goes back there
        saved = await admin.post(
            edit.split("?")[0],
            data={
                "csrf": csrf,
                "from": "2026-02-26",
                "users": ["ann@example.com"],
                "starts_at": "2026-03-02T00:00",
                "ends_at": "2026-03-04T00:00",
            },
        )
        assert saved.status_code == 303
        assert saved.headers["location"].endswith("?from=2026-02-26&done=saved#shifts")
        odd_back = await admin.post(
            edit.split("?")[0],
            data={
                "csrf": csrf,
                "from": "nonsense",
                "users": ["ann@example.com"],
                "starts_at": "2026-03-02T00:00",
                "ends_at": "2026-03-04T00:00",
            },
        )
        assert odd_back.headers["location"].endswith("?done=saved#shifts")
        delete = f"/on-call/default/events/{later}/delete"
        asked = await admin.post(delete, data={"csrf": csrf, "from": "2026-02-26"})
        assert 'name="from" value="2026-02-26"' in asked.text
        done = await admin.post(delete, data={"csrf": csrf, "from": "2026-02-26", "confirm": "yes"})
        assert done.headers["location"].endswith("?from=2026-02-26&done=deleted#shifts")
    assert await _users(app) == []


async def test_a_responder_reaches_later_weeks_but_no_member_list(app: FastAPI, api: Api) -> None:
    await many_members(app, api.team_id, 3)
    async with person(app, "rita@example.com", "responder") as (responder, _):
        page = await responder.get("/on-call/default?from=2026-02-26&find=member")
        assert page.status_code == 200 and "Four weeks from" in page.text
        assert "member0001@example.com" not in page.text and 'name="find"' not in page.text
