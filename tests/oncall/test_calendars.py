"""On-call calendars as the hosted API has them: /api/v2/on-calls, `default`, the people on
call now, pagination, cross-team isolation; on-call resolution with overrides."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import advance, create_member

ON_CALLS = "/api/v2/on-calls"


async def members(app: FastAPI, team: str = "acme") -> None:
    await create_member(app, team, "ann@example.com", "Ann Marie Lee")
    await create_member(app, team, "bob@example.com", "Bob")


async def event(api: Api, calendar: str, start: str, end: str, *users: str, **more: Any) -> Any:
    body = {"starts_at": start, "ends_at": end, "users": list(users), **more}
    response = await api.post(f"{ON_CALLS}/{calendar}/events", body)
    assert response.status_code == 201, response.text
    return response.json()


async def test_every_team_has_a_default_calendar(api: Api, other_api: Api) -> None:
    shown = data(await api.get(f"{ON_CALLS}/default"))
    assert shown["type"] == "on_call_calendar"
    assert shown["attributes"] == {"name": "Primary", "default_calendar": True, "team_name": "acme"}
    assert shown["relationships"] == {"on_call_users": {"data": []}}
    # the same one by its id, and only one
    assert data(await api.get(f"{ON_CALLS}/{shown['id']}")) == shown
    body = (await api.get(ON_CALLS)).json()
    assert [c["id"] for c in body["data"]] == [shown["id"]]
    assert body["included"] == [] and "pagination" in body
    theirs = data(await other_api.get(f"{ON_CALLS}/default"))
    assert theirs["id"] != shown["id"] and theirs["attributes"]["team_name"] == "globex"
    # the default cannot be deleted
    refused = await api.delete(f"{ON_CALLS}/default")
    assert refused.status_code == 422
    assert refused.json()["errors"] == ["The default on-call calendar cannot be deleted"]
    # but renamed, yes
    renamed = data(await api.patch(f"{ON_CALLS}/default", {"name": "Main rota"}))
    assert renamed["attributes"]["name"] == "Main rota"
    assert renamed["attributes"]["default_calendar"] is True


async def test_calendars_are_made_changed_and_deleted(api: Api, other_api: Api) -> None:
    made = data(await api.post(ON_CALLS, {"name": "Database", "team_name": "acme"}), 201)
    assert made["attributes"] == {
        "name": "Database",
        "default_calendar": False,
        "team_name": "acme",
    }
    path = f"{ON_CALLS}/{made['id']}"
    assert data(await api.get(path)) == made
    assert data(await api.patch(path, {"name": "DB"}))["attributes"]["name"] == "DB"
    assert (await other_api.get(path)).status_code == 404
    assert (await other_api.delete(path)).status_code == 404
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404
    assert (await api.get(f"{ON_CALLS}/nope")).status_code == 404
    assert errors(await api.post(ON_CALLS, {}))[1] == ["name"]
    assert errors(await api.post(ON_CALLS, {"name": "x", "team_name": "globex"}))[1] == [
        "team_name"
    ]
    assert errors(await api.post(ON_CALLS, {"name": "x", "default_calendar": True}))[1] == [
        "default_calendar"
    ]
    assert errors(await api.patch(f"{ON_CALLS}/default", {"name": None}))[1] == ["name"]


async def test_the_list_pages_and_filters_by_team_name(api: Api) -> None:
    made = [data(await api.post(ON_CALLS, {"name": f"rota {i}"}), 201)["id"] for i in range(3)]
    first = (await api.get(f"{ON_CALLS}?per_page=2")).json()
    assert len(first["data"]) == 2 and first["data"][0]["attributes"]["default_calendar"]
    assert first["pagination"]["next"] is not None
    second = (await api.get(f"{ON_CALLS}?per_page=2&page=2")).json()
    assert [c["id"] for c in second["data"]] == made[1:]
    assert second["pagination"]["next"] is None
    assert len((await api.get(f"{ON_CALLS}?team_name=acme")).json()["data"]) == 4
    assert (await api.get(f"{ON_CALLS}?team_name=globex")).json()["data"] == []


async def test_on_call_users_are_the_people_on_call_now(app: FastAPI, api: Api) -> None:
    await members(app)
    # Ann from now for a day, Bob the day after; an override of Bob for an hour tomorrow.
    await event(api, "default", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "ann@example.com")
    await event(api, "default", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "bob@example.com")
    await event(
        api,
        "default",
        "2026-01-01T12:00:00Z",
        "2026-01-01T13:00:00Z",
        "BOB@example.com",
        override=True,
    )

    async def on_call() -> list[str]:
        body = (await api.get(f"{ON_CALLS}/default")).json()
        refs = body["data"]["relationships"]["on_call_users"]["data"]
        assert [r["id"] for r in refs] == [u["id"] for u in body["included"]]
        return [r["meta"]["email"] for r in refs]

    body = (await api.get(f"{ON_CALLS}/default")).json()
    (ann,) = body["included"]
    assert ann["type"] == "user"
    assert ann["attributes"] == {
        "first_name": "Ann",
        "last_name": "Marie Lee",
        "email": "ann@example.com",
        "phone_numbers": [],
    }
    assert await on_call() == ["ann@example.com"]
    advance(app, 12 * 3600)  # the override starts: Bob replaces Ann
    assert await on_call() == ["bob@example.com"]
    advance(app, 3600)  # it ended
    assert await on_call() == ["ann@example.com"]
    advance(app, 11 * 3600)  # the next day: Bob (ends are exclusive)
    assert await on_call() == ["bob@example.com"]
    listed = (await api.get(ON_CALLS)).json()
    assert [u["attributes"]["email"] for u in listed["included"]] == ["bob@example.com"]
    advance(app, 86400)
    assert await on_call() == []


async def test_on_call_now_resolves_overrides_and_the_default(app: FastAPI, api: Api) -> None:
    from watchpost.oncall.now import on_call_now

    await members(app)
    other = data(await api.post(ON_CALLS, {"name": "Other"}), 201)
    await event(api, "default", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "ann@example.com")
    await event(
        api,
        "default",
        "2026-01-01T00:00:00Z",
        "2026-01-01T06:00:00Z",
        "bob@example.com",
        "ann@example.com",
        override=True,
    )
    await event(api, other["id"], "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "bob@example.com")
    ctx = app.state.ctx

    async def people(calendar_id: int | None, at: datetime) -> list[str]:
        async with ctx.db.write_sessions() as session, session.begin():
            return [u.email for u in await on_call_now(session, api.team_id, calendar_id, at)]

    start = datetime(2026, 1, 1, tzinfo=UTC)
    assert await people(None, start) == ["bob@example.com", "ann@example.com"]
    assert await people(None, start.replace(hour=6)) == ["ann@example.com"]
    assert await people(int(other["id"]), start) == ["bob@example.com"]
    assert await people(None, start.replace(day=3)) == []
    assert await people(987654, start) == []  # not a calendar of the team
