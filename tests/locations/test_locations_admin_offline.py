"""Silent agent locations: marked offline after their `offline_after_s`, one incident in each
team with monitors checked there (and the owning team), resolved when an agent reports again;
never-seen locations stay unknown; the server's own is never offline. A frozen clock, no
sleeps; the sweep as the engine runs it."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api
from tests.factories.engine import engine_of
from tests.factories.monitors import create_monitor
from tests.locations.admin import server_location
from watchpost.clock import FrozenClock
from watchpost.delivery.models import DeliveryEvent
from watchpost.engine.sweeps import Every, default_sweeps
from watchpost.incidents.models import Incident
from watchpost.locations import offline
from watchpost.locations.models import Location, LocationCheck
from watchpost.probing import service


async def _location(app: FastAPI, name: str, **values: Any) -> int:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        location = await service.create_location(
            session, name=name, region="eu", now=ctx.clock.now(), **values
        )
        return location.id


async def _checked_there(app: FastAPI, api: Api, location_id: int) -> None:
    """A monitor of api's team checked at the location (region eu: placed there)."""
    monitor = await create_monitor(api)
    async with app.state.ctx.db.read_sessions() as session:
        found = await session.scalar(
            select(LocationCheck.id).where(
                LocationCheck.location_id == location_id,
                LocationCheck.monitor_id == int(monitor["id"]),
            )
        )
    assert found is not None


async def _seen(app: FastAPI, location_id: int, agent: str | None = "probe-1 1.0") -> None:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        location = await session.get(Location, location_id)
        assert location is not None
        await offline.seen(session, location, now=ctx.clock.now(), agent=agent)


async def _sweep(app: FastAPI) -> list[str]:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        return [row.name for row in await offline.mark_offline(session, now=ctx.clock.now())]


async def _incidents(app: FastAPI) -> list[tuple[int, str, bool]]:
    async with app.state.ctx.db.read_sessions() as session:
        rows = await session.scalars(select(Incident).order_by(Incident.id))
        return [(row.team_id, row.name, row.resolved_at is None) for row in rows]


async def test_a_silent_location_goes_offline_and_comes_back(
    app: FastAPI, api: Api, other_api: Api, clock: FrozenClock
) -> None:
    await server_location(app)
    west = await _location(app, "eu-west", offline_after_s=60)
    await _location(app, "never-seen")
    await _checked_there(app, api, west)
    await _checked_there(app, api, west)
    await _checked_there(app, other_api, west)
    await _seen(app, west)

    clock.advance(59)
    assert await _sweep(app) == []
    clock.advance(1)
    assert await _sweep(app) == ["eu-west"]
    assert await _sweep(app) == []  # once
    name = "Probe location eu-west is offline"
    assert await _incidents(app) == [(api.team_id, name, True), (other_api.team_id, name, True)]
    listed = (await api.get("/api/v2/locations")).json()["data"]
    statuses = {item["attributes"]["name"]: item["attributes"]["status"] for item in listed}
    assert statuses == {"eu-west": "offline", "local": "online", "never-seen": "unknown"}
    async with app.state.ctx.db.read_sessions() as session:
        incident = await session.scalar(select(Incident).limit(1))
        events = (await session.scalars(select(DeliveryEvent.event))).all()
    assert incident is not None and "not counted" in incident.cause
    assert incident.metadata_ == {offline.INCIDENT_KEY: [str(west)]}
    assert list(events).count("started") == 2  # told through the usual alerting

    # Renamed while offline: its incidents are still found.
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        location = await session.get(Location, west)
        assert location is not None
        await service.update_location(session, location, name="eu-west-1", now=clock.now())
    clock.advance(600)
    await _seen(app, west)
    assert [open_ for _, _, open_ in await _incidents(app)] == [False, False]
    async with app.state.ctx.db.read_sessions() as session:
        back = await session.get(Location, west)
    assert back is not None and back.offline_since is None and back.last_agent == "probe-1 1.0"
    assert back.last_seen_at == clock.now()

    clock.advance(60)  # silent again: a new incident, the old ones stay resolved
    assert await _sweep(app) == ["eu-west-1"]
    assert [open_ for _, _, open_ in await _incidents(app)] == [False, False, True, True]


async def test_a_teams_location_tells_its_team_and_deleting_resolves(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    office = await _location(app, "office", team_id=api.team_id)
    await _seen(app, office, agent=None)
    clock.advance(90)
    assert await _sweep(app) == ["office"]
    assert await _incidents(app) == [(api.team_id, "Probe location office is offline", True)]
    assert (await api.delete(f"/api/v2/locations/{office}")).status_code == 204
    assert await _incidents(app) == [(api.team_id, "Probe location office is offline", False)]


async def test_seen_writes_at_most_every_few_seconds(app: FastAPI, clock: FrozenClock) -> None:
    west = await _location(app, "eu-west")
    first = clock.now()
    await _seen(app, west)
    clock.advance(2)
    await _seen(app, west)
    async with app.state.ctx.db.read_sessions() as session:
        row = await session.get(Location, west)
    assert row is not None and row.last_seen_at == first
    await _seen(app, west, agent="probe-1 1.1")  # a new agent is written at once
    clock.advance(offline.SEEN_PRECISION)
    await _seen(app, west, agent=None)  # None: the agent said nothing of itself
    async with app.state.ctx.db.read_sessions() as session:
        row = await session.get(Location, west)
    assert row is not None and row.last_seen_at == clock.now() and row.last_agent == "probe-1 1.1"


async def test_the_engine_sweeps_silent_locations(app: FastAPI, clock: FrozenClock) -> None:
    sweeps = default_sweeps()
    assert any(isinstance(s, Every) and s.sweep is offline.sweep for s in sweeps)
    server = await server_location(app)
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = await session.get(Location, server.id)
        assert row is not None
        row.last_seen_at = clock.now()  # the server's own is never offline, whatever this says
    west = await _location(app, "eu-west", offline_after_s=30)
    await _seen(app, west)
    engine = engine_of(app)
    clock.advance(31)
    await engine.tick(clock.now())
    async with app.state.ctx.db.read_sessions() as session:
        offline_now = (
            await session.scalars(select(Location.name).where(Location.offline_since.is_not(None)))
        ).all()
    assert list(offline_now) == ["eu-west"]
