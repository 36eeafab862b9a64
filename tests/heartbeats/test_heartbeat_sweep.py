"""sweep_overdue: overdue heartbeats go down with one incident; the next ping resolves it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.heartbeats import CreatedHeartbeat, create_heartbeat, events, incidents, row
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.context import AppContext
from watchpost.heartbeats.checking import sweep_overdue
from watchpost.heartbeats.models import Heartbeat
from watchpost.incidents.transitions import AUTOMATIC
from watchpost.maintenance_windows import in_maintenance

WINDOW = timedelta(seconds=300 + 60)
TICK = timedelta(microseconds=1)


async def _sweep(app: FastAPI, clock: FrozenClock, limit: int = 500) -> int:
    ctx: AppContext = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        return await sweep_overdue(session, now=clock.now(), limit=limit)


async def _up(api: Api, client: httpx.AsyncClient, **attributes: object) -> CreatedHeartbeat:
    made = await create_heartbeat(api, **attributes)
    assert (await client.get(made.url)).status_code == 200
    return made


async def test_nothing_happens_until_the_deadline_has_passed(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    clock.set(datetime(2026, 1, 1, 12, 0, 0, 654321, tzinfo=UTC))
    made = await _up(api, client)
    clock.advance(WINDOW)  # exactly at the deadline (computed in SQL): not yet overdue
    assert await _sweep(app, clock) == 0
    assert (await row(app, made.id)).status == "up"
    clock.advance(TICK)
    assert await _sweep(app, clock) == 1
    assert (await row(app, made.id)).status == "down"


async def test_an_overdue_heartbeat_goes_down_with_one_incident(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await _up(api, client, name="nightly backup")
    pinged = clock.now()
    now = clock.advance(WINDOW + timedelta(seconds=5))
    assert await _sweep(app, clock) == 1
    [incident] = await incidents(app, made.id)
    assert (incident.name, incident.started_at, incident.resolved_at) == (
        "nightly backup",
        now,
        None,
    )
    assert incident.cause == (
        "No ping received within period + grace (300 s + 60 s): "
        f"last ping {isoformat_ms(pinged)}, due by {isoformat_ms(pinged + WINDOW)}, "
        f"checked at {isoformat_ms(now)}."
    )
    clock.advance(60)
    assert await _sweep(app, clock) == 0  # already down: nothing new
    assert len(await incidents(app, made.id)) == 1


async def test_the_next_ping_resolves_it(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await _up(api, client)
    clock.advance(WINDOW + TICK)
    await _sweep(app, clock)
    at = clock.advance(600)
    assert (await client.post(made.url)).status_code == 200
    current = await row(app, made.id)
    assert (current.status, current.next_due_at) == ("up", at + WINDOW)
    [incident] = await incidents(app, made.id)
    assert (incident.resolved_at, incident.resolved_by) == (at, AUTOMATIC)
    timeline = await events(app, incident)
    assert [item.kind for item in timeline] == ["started", "resolved"]
    assert timeline[1].text == f"Ping received at {isoformat_ms(at)}; the heartbeat is up again."


async def test_pending_and_paused_heartbeats_are_never_swept(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    pending = await create_heartbeat(api)
    paused = await _up(api, client)
    assert (await api.patch(f"/api/v2/heartbeats/{paused.id}", {"paused": True})).status_code == 200
    clock.advance(timedelta(days=3))
    assert await _sweep(app, clock) == 0
    assert (await row(app, pending.id)).status == "pending"
    assert (await row(app, paused.id)).status == "paused"
    assert await incidents(app, pending.id) == [] and await incidents(app, paused.id) == []


async def test_the_limit_bounds_one_sweep(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = [await _up(api, client) for _ in range(3)]
    clock.advance(WINDOW + TICK)
    assert await _sweep(app, clock, limit=2) == 2
    assert await _sweep(app, clock, limit=2) == 1
    assert [len(await incidents(app, item.id)) for item in made] == [1, 1, 1]


async def test_sweepers_running_at_once_open_one_incident_each(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = [await _up(api, client) for _ in range(4)]
    clock.advance(WINDOW + TICK)
    counts = await asyncio.gather(*(_sweep(app, clock) for _ in range(5)))
    assert sum(counts) == 4
    assert [len(await incidents(app, item.id)) for item in made] == [1, 1, 1, 1]


async def test_inside_the_maintenance_window_no_incident_and_a_look_at_its_end(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    clock.set(datetime(2026, 1, 5, 1, 0, tzinfo=UTC))  # Monday 02:00 in Prague
    window = {
        "maintenance_from": "02:00:00",
        "maintenance_to": "03:00:00",
        "maintenance_timezone": "Europe/Prague",
    }
    made = await _up(api, client, **window)
    now = clock.advance(WINDOW + TICK)  # 02:06 local, in the window
    assert await _sweep(app, clock) == 0
    current = await row(app, made.id)
    window_end = datetime(2026, 1, 5, 2, 0, tzinfo=UTC)  # 03:00 in Prague
    assert (current.status, current.next_due_at) == ("up", window_end)
    assert now < window_end
    assert await incidents(app, made.id) == []
    clock.set(window_end)  # 03:00 local: the window is over, the deadline is now
    assert await _sweep(app, clock) == 0  # overdue only once the deadline has passed
    clock.advance(1)
    assert await _sweep(app, clock) == 1
    assert (await row(app, made.id)).status == "down"
    assert len(await incidents(app, made.id)) == 1


def _window(start: str, end: str, days: list[str], zone: str = "UTC") -> Heartbeat:
    return Heartbeat(
        maintenance_from=start,
        maintenance_to=end,
        maintenance_days=days,
        maintenance_timezone=zone,
    )


@pytest.mark.parametrize(
    ("window", "at", "inside"),
    [
        (_window("02:00:00", "03:00:00", []), datetime(2026, 1, 7, 2, 0), True),
        (_window("02:00:00", "03:00:00", []), datetime(2026, 1, 7, 3, 0), False),
        (_window("02:00:00", "03:00:00", ["tue"]), datetime(2026, 1, 7, 2, 30), False),
        (_window("02:00:00", "03:00:00", ["wed"]), datetime(2026, 1, 7, 2, 30), True),
        # past midnight: belongs to the day it starts on
        (_window("23:00:00", "01:00:00", ["tue"]), datetime(2026, 1, 7, 0, 30), True),
        (_window("23:00:00", "01:00:00", ["wed"]), datetime(2026, 1, 7, 0, 30), False),
        (_window("23:00:00", "01:00:00", ["wed"]), datetime(2026, 1, 7, 23, 30), True),
        (
            _window("02:00:00", "03:00:00", [], "America/New_York"),
            datetime(2026, 1, 7, 7, 30),
            True,
        ),
        (_window("02:00:00", "02:00:00", ["wed"]), datetime(2026, 1, 7, 1, 0), False),
        (_window("02:00:00", "02:00:00", ["wed"]), datetime(2026, 1, 8, 1, 59), True),
        (Heartbeat(maintenance_from=None, maintenance_to=None), datetime(2026, 1, 7, 2, 0), False),
    ],
)
def test_in_maintenance(window: Heartbeat, at: datetime, inside: bool) -> None:
    assert in_maintenance(window, at.replace(tzinfo=UTC)) is inside
