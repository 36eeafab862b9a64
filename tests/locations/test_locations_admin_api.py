"""/api/v2/locations and their probe tokens, through the real app: a team sees the operator's
locations and its own, creates and changes only its own (private) ones and their tokens;
another team's are 404; an API token is no probe token and a probe token no API token."""

from __future__ import annotations

from datetime import timedelta

from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data, errors
from tests.factories.engine import change
from tests.factories.monitors import create_monitor
from tests.locations.admin import server_location
from watchpost.clock import FrozenClock
from watchpost.locations import tokens
from watchpost.locations.models import Location, ProbeToken
from watchpost.monitors.models import Monitor
from watchpost.probing import service


async def _shared(app: FastAPI, name: str = "eu-west") -> Location:
    """A location of the operator's, as `watchpost location create` makes it (and the
    server's own, which migration 0038 seeds and the PostgreSQL tests' reset removes)."""
    await server_location(app)
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        return await service.create_location(session, name=name, region="eu", now=ctx.clock.now())


async def test_lists_the_operators_locations_and_the_teams_own(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    await _shared(app)
    own = data(await api.post("/api/v2/locations", {"name": "office", "region": "eu"}), 201)
    assert own["type"] == "location"
    assert own["attributes"] == {
        "name": "office",
        "region": "eu",
        "private": True,
        "server": False,
        "team": True,
        "status": "unknown",
        "last_seen_at": None,
        "offline_after": 90,
        "created_at": "2026-01-01T00:00:00.000Z",
    }
    data(await other_api.post("/api/v2/locations", {"name": "lab", "region": "as"}), 201)

    body = (await api.get("/api/v2/locations")).json()
    assert [item["attributes"]["name"] for item in body["data"]] == ["eu-west", "local", "office"]
    local = body["data"][1]["attributes"]
    assert local["server"] and local["status"] == "online" and not local["private"]
    assert body["pagination"]["next"] is None
    others = (await other_api.get("/api/v2/locations")).json()["data"]
    assert [item["attributes"]["name"] for item in others] == ["eu-west", "lab", "local"]
    assert (await other_api.get(f"/api/v2/locations/{own['id']}")).status_code == 404
    assert data(await api.get(f"/api/v2/locations/{own['id']}"))["id"] == own["id"]


async def test_create_and_update_are_validated(app: FastAPI, api: Api) -> None:
    await server_location(app)
    problems, fields = errors(
        await api.post("/api/v2/locations", {"name": "Bad Name", "region": "mars"})
    )
    assert fields == ["region"], problems
    _, fields = errors(await api.post("/api/v2/locations", {"name": "Bad", "region": "eu"}))
    assert fields == ["name"]
    _, fields = errors(
        await api.post("/api/v2/locations", {"name": "ok", "region": "eu", "offline_after": 5})
    )
    assert fields == ["offline_after"]
    _, fields = errors(
        await api.post("/api/v2/locations", {"name": "ok", "region": "eu", "status": "online"})
    )
    assert fields == ["status"]
    _, fields = errors(await api.post("/api/v2/locations", {"name": "local", "region": "eu"}))
    assert fields == ["name"]
    made = data(await api.post("/api/v2/locations", {"name": "ok", "region": "eu"}), 201)
    url = f"/api/v2/locations/{made['id']}"
    _, fields = errors(await api.patch(url, {"region": None}))
    assert fields == ["region"]
    changed = data(await api.patch(url, {"name": "ok-2", "region": "au", "offline_after": 600}))
    assert changed["attributes"] | {"created_at": None} == {
        "name": "ok-2",
        "region": "au",
        "private": True,
        "server": False,
        "team": True,
        "status": "unknown",
        "last_seen_at": None,
        "offline_after": 600,
        "created_at": None,
    }


async def test_the_operators_locations_are_read_only(app: FastAPI, api: Api) -> None:
    shared = await _shared(app)
    url = f"/api/v2/locations/{shared.id}"
    for response in (
        await api.patch(url, {"name": "mine"}),
        await api.delete(url),
        await api.get(f"{url}/probe-tokens"),
        await api.post(f"{url}/probe-tokens", {}),
    ):
        assert response.status_code == 403, response.text
        assert "watchpost location" in response.json()["errors"]
    assert data(await api.get(url))["attributes"]["name"] == "eu-west"


async def test_rename_follows_into_monitors_and_delete_is_refused_while_named(
    app: FastAPI, api: Api
) -> None:
    made = data(await api.post("/api/v2/locations", {"name": "office", "region": "eu"}), 201)
    url = f"/api/v2/locations/{made['id']}"
    monitor = await create_monitor(api)
    await change(app, Monitor, monitor["id"], locations=["local", "office"])
    data(await api.patch(url, {"name": "office-berlin"}))
    async with app.state.ctx.db.read_sessions() as session:
        named = await session.scalar(
            select(Monitor.locations).where(Monitor.id == int(monitor["id"]))
        )
    assert named == ["local", "office-berlin"]

    refused = await api.delete(url)
    assert refused.status_code == 409
    assert refused.json()["errors"].startswith("1 monitor names location 'office-berlin'")
    await change(app, Monitor, monitor["id"], locations=[])
    assert (await api.delete(url)).status_code == 204
    assert (await api.get(url)).status_code == 404


async def test_probe_tokens_of_a_teams_location(
    app: FastAPI, api: Api, other_api: Api, clock: FrozenClock
) -> None:
    made = data(await api.post("/api/v2/locations", {"name": "office", "region": "eu"}), 201)
    url = f"/api/v2/locations/{made['id']}/probe-tokens"
    created = data(await api.post(url, {"name": "rack 4"}), 201)
    raw = created["attributes"]["token"]
    assert raw.startswith("wpp_") and created["type"] == "probe_token"
    assert created["attributes"]["prefix"] == raw[:12]
    listed = (await api.get(url)).json()
    assert [item["attributes"]["name"] for item in listed["data"]] == ["rack 4"]
    assert raw not in str(listed) and "token" not in listed["data"][0]["attributes"]
    assert (await other_api.get(url)).status_code == 404

    async with app.state.ctx.db.write_sessions() as session, session.begin():
        found = await tokens.authenticate(session, raw, clock.now())
        assert found is not None and found.name == "office"
        stored = await session.scalar(select(ProbeToken.token_hash))
    assert stored != raw and raw not in str(stored)

    # The probe token is no API token, and the API token no probe token.
    refused = await api.client.get("/api/v2/locations", headers={"Authorization": f"Bearer {raw}"})
    assert refused.status_code == 401
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        assert await tokens.authenticate(session, api.token, clock.now()) is None
        assert await tokens.authenticate(session, "wpp_" + api.token, clock.now()) is None

    assert (await api.delete(f"{url}/{created['id']}")).status_code == 204
    revoked = (await api.get(url)).json()["data"][0]["attributes"]
    assert revoked["revoked_at"] == "2026-01-01T00:00:00.000Z"
    assert (await api.delete(f"{url}/{created['id']}")).status_code == 204  # still revoked
    assert (await api.delete(f"{url}/987654")).status_code == 404
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        assert await tokens.authenticate(session, raw, clock.now() + timedelta(hours=1)) is None
