"""/locations over HTTP: everyone lists the shared locations and the team's own; an admin
creates a private location (the API's errors beside the fields), changes and deletes it (a
409 while monitors name it, shown on its page), creates a probe token shown once with the
`watchpost probe` command, and revokes it; every write is audited. A viewer cannot write,
another team's location is a 404, the operator's is read only, a forged form changes
nothing."""

from __future__ import annotations

import re
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import actions, audit_entries, person
from tests.factories.api import Api
from tests.factories.monitors import create_monitor
from watchpost.locations import tokens
from watchpost.locations.models import Location, ProbeToken

_TOKEN = re.compile(r'<code id="new-token" class="secret">(wpp_[^<]+)</code>')
_COMMAND = re.compile(r'<code id="probe-command" class="secret">([^<]+)</code>')


async def add_location(app: FastAPI, name: str, **values: Any) -> int:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        location = Location(
            name=name, region=values.pop("region", "eu"), created_at=ctx.clock.now(), **values
        )
        session.add(location)
        await session.flush()
        return location.id


async def locations(app: FastAPI) -> dict[str, Location]:
    async with app.state.ctx.db.read_sessions() as session:
        return {row.name: row for row in await session.scalars(select(Location))}


async def probe_tokens(app: FastAPI) -> list[ProbeToken]:
    async with app.state.ctx.db.read_sessions() as session:
        return list(await session.scalars(select(ProbeToken).order_by(ProbeToken.id)))


async def test_everyone_sees_the_shared_locations_and_the_teams_own(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    await add_location(app, "eu-west", last_agent="probe-1 1.0")
    ours = await add_location(app, "office", private=True, team_id=api.team_id, region="us")
    theirs = await add_location(app, "their-lab", private=True, team_id=other_api.team_id)
    async with person(app, "vic@example.com", "viewer") as (client, _):
        listed = await client.get("/locations")
        mine = await client.get(f"/locations/{ours}")
        other = await client.get(f"/locations/{theirs}")
        form = await client.get("/locations/new")
    assert listed.status_code == 200
    for word in ("local", "eu-west", "office", "probe-1 1.0", "Shared", "Your team"):
        assert word in listed.text
    assert "their-lab" not in listed.text
    assert 'href="/locations/new"' not in listed.text  # a viewer creates nothing
    assert '<a href="/locations"' in listed.text and 'aria-current="page"' in listed.text
    assert mine.status_code == 200 and "Probe tokens" in mine.text
    assert "Create probe token" not in mine.text
    assert other.status_code == 404 and form.status_code == 403


async def test_an_admin_creates_changes_and_deletes_a_location(app: FastAPI, api: Api) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        bad = await admin.post(
            "/locations/new",
            data={"csrf": csrf, "name": "office", "region": "mars", "offline_after": "5"},
        )
        named = await admin.post(
            "/locations/new", data={"csrf": csrf, "name": "Bad Name", "region": "eu"}
        )
        created = await admin.post(
            "/locations/new",
            data={"csrf": csrf, "name": "office", "region": "eu", "offline_after": "120"},
        )
        location = (await locations(app))["office"]
        changed = await admin.post(
            f"/locations/{location.id}/edit",
            data={"csrf": csrf, "name": "office-2", "region": "us", "offline_after": "300"},
        )
        asked = await admin.post(f"/locations/{location.id}/delete", data={"csrf": csrf})
        deleted = await admin.post(
            f"/locations/{location.id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
    assert bad.status_code == named.status_code == 422
    for name in ("region", "offline_after"):
        assert f'id="{name}-error"' in bad.text
    assert 'id="name-error"' in named.text and "lower-case letters" in named.text
    assert 'value="Bad Name"' in named.text  # what was typed stays
    assert created.status_code == 303 and created.headers["location"] == f"/locations/{location.id}"
    assert location.team_id == api.team_id and location.private and location.offline_after_s == 120
    assert changed.status_code == 303
    assert asked.status_code == 200 and "Delete the location “office-2”?" in asked.text
    assert deleted.status_code == 303 and "office-2" not in await locations(app)
    assert await actions(app) == ["location.created", "location.updated", "location.deleted"]
    entries = [e for e in await audit_entries(app) if e.action.startswith("location.")]
    assert [e.subject for e in entries] == ["office", "office-2", "office-2"]
    assert all(e.actor == "ann@example.com" for e in entries)


async def test_a_named_location_is_not_deleted(app: FastAPI, api: Api) -> None:
    ours = await add_location(app, "office", private=True, team_id=api.team_id)
    await create_monitor(api, locations=["office"])
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        answer = await admin.post(
            f"/locations/{ours}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
    assert answer.status_code == 409
    assert "Not deleted" in answer.text and "1 monitor names location" in answer.text
    assert "office" in await locations(app)
    assert await actions(app) == ["monitor.created"]  # by the API


async def test_a_probe_token_is_shown_once_with_its_command_then_revoked(
    app: FastAPI, api: Api
) -> None:
    ours = await add_location(app, "office", private=True, team_id=api.team_id)
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        created = await admin.post(
            f"/locations/{ours}/tokens", data={"csrf": csrf, "name": " probe  one "}
        )
        token = _TOKEN.search(created.text)
        command = _COMMAND.search(created.text)
        again = await admin.get(f"/locations/{ours}")
        [row] = await probe_tokens(app)
        asked = await admin.post(f"/locations/{ours}/tokens/{row.id}/revoke", data={"csrf": csrf})
        revoked = await admin.post(
            f"/locations/{ours}/tokens/{row.id}/revoke", data={"csrf": csrf, "confirm": "yes"}
        )
        listed = await admin.get(f"/locations/{ours}")
    assert created.status_code == 200 and token is not None and command is not None
    raw = token.group(1)
    assert command.group(1) == (
        f"watchpost probe --server http://testserver --token {raw} --insecure-http"
    )
    assert "shown only this once" in created.text
    assert raw not in again.text and f"{raw[:12]}…" in again.text and "probe one" in again.text
    assert row.name == "probe one" and row.revoked_at is None
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        assert await tokens.authenticate(session, raw, app.state.ctx.clock.now()) is None
    assert asked.status_code == 200 and "Revoke the probe token" in asked.text
    assert revoked.status_code == 303 and "Revoked" in listed.text
    assert await actions(app) == ["probe_token.created", "probe_token.revoked"]
    [entry, _] = [e for e in await audit_entries(app) if e.action.startswith("probe_token.")]
    assert entry.subject == f"{raw[:12]}… (probe one)" and entry.details == {"location": "office"}


async def test_roles_other_teams_and_shared_locations_are_refused(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    ours = await add_location(app, "office", private=True, team_id=api.team_id)
    shared = await add_location(app, "eu-west")
    theirs = await add_location(app, "their-lab", private=True, team_id=other_api.team_id)
    async with person(app, "vic@example.com", "viewer") as (viewer, csrf):
        refused = [
            await viewer.post(path, data={"csrf": csrf, **body})
            for path, body in (
                ("/locations/new", {"name": "nope", "region": "eu"}),
                (f"/locations/{ours}/edit", {"name": "nope", "region": "eu"}),
                (f"/locations/{ours}/delete", {"confirm": "yes"}),
                (f"/locations/{ours}/tokens", {"name": "x"}),
            )
        ]
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        other = [
            await admin.post(f"/locations/{theirs}/delete", data={"csrf": csrf, "confirm": "yes"}),
            await admin.post(f"/locations/{theirs}/tokens", data={"csrf": csrf}),
            await admin.get(f"/locations/{theirs}/edit"),
        ]
        operator = [
            await admin.post(f"/locations/{shared}/delete", data={"csrf": csrf, "confirm": "yes"}),
            await admin.post(f"/locations/{shared}/tokens", data={"csrf": csrf}),
            await admin.get(f"/locations/{shared}/edit"),
        ]
        shared_page = await admin.get(f"/locations/{shared}")
        forged = await admin.post("/locations/new", data={"name": "forged", "region": "eu"})
        cross = await admin.post(
            f"/locations/{ours}/tokens",
            data={"csrf": csrf},
            headers={"Origin": "https://evil.example"},
        )
    assert [answer.status_code for answer in refused] == [403] * 4
    assert [answer.status_code for answer in other] == [404] * 3
    assert [answer.status_code for answer in operator] == [403] * 3
    assert "watchpost location" in shared_page.text and "Create probe token" not in shared_page.text
    assert forged.status_code == cross.status_code == 403
    assert set(await locations(app)) == {"local", "office", "eu-west", "their-lab"}
    assert await probe_tokens(app) == []
    assert await actions(app) == []


async def test_a_forged_form_without_a_session_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    ours = await add_location(app, "office", private=True, team_id=api.team_id)
    answer = await client.post(f"/locations/{ours}/delete", data={"confirm": "yes"})
    assert answer.status_code in (303, 403)
    assert "office" in await locations(app)
