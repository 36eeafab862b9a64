"""The data of the console's detail pages: a monitor, a heartbeat and a collector target,
checked by the engine as in production, read through console/detail_data.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest
from fastapi import FastAPI
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession

from tests.factories.api import Api, data
from tests.factories.engine import engine_of, recording_server
from tests.factories.heartbeats import create_heartbeat
from tests.factories.history import obs, write
from tests.factories.monitors import MONITORS, create_monitor
from tests.factories.objects import create_collector, create_target, target_body
from tests.factories.servers import free_port
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.collectors import metrics
from watchpost.console.detail_data import (
    AVAILABILITY_RANGES,
    heartbeat_detail,
    monitor_detail,
    target_detail,
)
from watchpost.errors import NotFound
from watchpost.monitors.models import Monitor

T = TypeVar("T")
HOUR = timedelta(hours=1)


@asynccontextmanager
async def counted(app: FastAPI) -> AsyncIterator[tuple[AsyncSession, list[str]]]:
    """A read session and the statements it runs."""
    statements: list[str] = []
    async with app.state.ctx.db.read_sessions() as session:
        sync_engine = (await session.connection()).engine.sync_engine

        def seen(*args: Any) -> None:
            statements.append(args[2])

        event.listen(sync_engine, "before_cursor_execute", seen)
        try:
            yield session, statements
        finally:
            event.remove(sync_engine, "before_cursor_execute", seen)


async def read(app: FastAPI, reader: Callable[[AsyncSession], Awaitable[T]]) -> T:
    async with app.state.ctx.db.read_sessions() as session:
        return await reader(session)


async def sla(api: Api, path: str, clock: FrozenClock, span: timedelta) -> float:
    """What the API's availability route answers for the last `span`."""
    since = isoformat_ms(clock.now() - span)
    answer = data(await api.get(f"{path}?from={since}"))
    return float(answer["attributes"]["availability"])


async def test_a_monitor_checked_by_the_engine(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    async with recording_server() as server:
        created = await create_monitor(
            api,
            url=server.url("/health"),
            check_frequency=60,
            confirmation_period=0,
            recovery_period=0,
        )
        monitor_id = int(created["id"])
        engine = engine_of(app)

        async def check(hours: float) -> None:
            clock.advance(hours * 3600)
            await engine.tick()

        await check(0)  # 00:00 up
        for _ in range(3):
            await check(1)  # up at 01:00, 02:00, 03:00
        server.status["/health"] = 500
        await check(1)  # 04:00 down: an incident opens
        await check(0.5)  # 04:30 still down
        server.status["/health"] = 200
        await check(1)  # 05:30 up: resolved
        await check(1)  # 06:30
        clock.advance(600)  # 06:40

    async with counted(app) as (session, statements):
        detail = await monitor_detail(
            session, team_id=api.team_id, monitor_id=monitor_id, now=clock.now()
        )
    assert len(statements) == 6, statements  # the last: the locations checking it
    assert detail.monitor.id == monitor_id and detail.state == "up"
    (incident,) = detail.incidents
    assert incident.started_at == created_at(created) + 4 * HOUR
    assert incident.resolved_at == created_at(created) + timedelta(hours=5, minutes=30)
    assert detail.since == incident.resolved_at

    assert [(row.ok, row.state) for row in detail.checks] == [
        (True, "up"),
        (True, "up"),
        (False, "down"),
        (False, "down"),
        *[(True, "up")] * 4,
    ]
    assert [row.at for row in detail.checks] == sorted((r.at for r in detail.checks), reverse=True)
    failed = detail.checks[2]
    assert failed.error is not None and "500" in failed.error
    assert all(row.ms is not None and row.ms >= 0 for row in detail.checks if row.ok)

    day = detail.series["24h"]
    assert len(day) == 25 and day[-1].at == created_at(created) + 6 * HOUR
    downs = {point.at.hour for point in day if point.down}
    assert downs == {4}  # the 04:00 hour holds both failed checks; 05:30 was up again
    assert all(point.ms is not None for point in day[-7:])
    assert all(point.ms is None and not point.down for point in day[:-7])  # before creation
    assert len(detail.series["7d"]) == 169 and len(detail.series["30d"]) == 181
    assert all(len(points) <= 200 for points in detail.series.values())

    path = f"{MONITORS}/{monitor_id}/sla"
    for name, span in AVAILABILITY_RANGES.items():
        assert detail.availability[name] == await sla(api, path, clock, span), name
    # 90 minutes down in the 6 h 40 min the monitor has existed
    assert detail.availability["24h"] == round(100 * (1 - 90 / 400), 4)


def created_at(resource: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(resource["attributes"]["created_at"].replace("Z", "+00:00"))


async def test_a_monitor_pending_down_recovering_and_paused(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async def detail_now() -> Any:
        return await read(
            app,
            lambda s: monitor_detail(
                s, team_id=api.team_id, monitor_id=monitor_id, now=clock.now()
            ),
        )

    async with recording_server() as server:
        server.status["/"] = 503
        created = await create_monitor(
            api,
            url=server.url("/"),
            check_frequency=60,
            confirmation_period=0,
            recovery_period=600,
        )
        monitor_id = int(created["id"])
        detail = await detail_now()
        assert (detail.state, detail.since) == ("pending", clock.now())
        assert detail.checks == [] and detail.incidents == []
        assert all(not p.down and p.ms is None for p in detail.series["30d"])
        assert detail.availability == dict.fromkeys(AVAILABILITY_RANGES)  # existed 0 s

        engine = engine_of(app)
        clock.advance(90)
        await engine.tick()
        failed_at = clock.now()
        clock.advance(60)
        await engine.tick()
        detail = await detail_now()
        assert (detail.state, detail.since) == ("down", failed_at)
        assert detail.incidents[0].resolved_at is None
        assert detail.checks[0].error and "503" in detail.checks[0].error

        server.status["/"] = 200
        clock.advance(60)
        await engine.tick()  # a success: recovery is validated for 10 minutes
        detail = await detail_now()
        assert (detail.state, detail.since) == ("pending", clock.now())
        assert detail.checks[0].ok and detail.incidents[0].resolved_at is None

    clock.advance(30)
    data(await api.patch(f"{MONITORS}/{monitor_id}", {"paused": True}))
    detail = await detail_now()
    assert (detail.state, detail.since) == ("paused", clock.now())


async def test_the_charts_series_from_a_year_of_history(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    """Hourly points for 24 h and 7 d, four-hour points for 30 d, averaged as the rollups
    sum them; a slot with a failed check is down."""
    clock.set(clock.now() + timedelta(days=400))
    start = clock.now() - timedelta(days=365)
    created = await create_monitor(api)
    monitor_id = int(created["id"])
    await _backdate(app, monitor_id, start)
    observations = []
    for hour in range(365 * 24):
        at = start + hour * HOUR
        failing = hour % 50 == 7
        observations.append(
            obs(
                api.team_id,
                at,
                "down" if failing else "up",
                subject_id=monitor_id,
                valid_for_s=3600,
                latency_ms=None if failing else float(100 + hour % 4 * 10),
            )
        )
    await write(app, observations)
    now = clock.now()
    async with counted(app) as (session, statements):
        detail = await monitor_detail(session, team_id=api.team_id, monitor_id=monitor_id, now=now)
    assert len(statements) == 6

    week = detail.series["7d"]
    assert len(week) == 168 and week[0].at == now - 7 * 24 * HOUR  # now is 00:00
    for point in week:
        hour = round((point.at - start) / HOUR)
        assert point.down == (hour % 50 == 7), point
        assert point.ms == (None if hour % 50 == 7 else 100 + hour % 4 * 10)
    month = detail.series["30d"]
    assert len(month) == 180 and all(p.at.hour % 4 == 0 for p in month)
    first_full = month[0]
    hours = [round((first_full.at - start) / HOUR) + k for k in range(4)]
    timed = [100 + h % 4 * 10 for h in hours if h % 50 != 7]
    assert first_full.ms == pytest.approx(sum(timed) / len(timed))
    assert first_full.down == any(h % 50 == 7 for h in hours)
    assert detail.series["24h"] == week[-24:]


async def _backdate(app: FastAPI, monitor_id: int, at: datetime) -> None:
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = await session.get(Monitor, monitor_id)
        assert row is not None
        row.created_at = at


async def test_a_heartbeat_pinged_then_failing(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    heartbeat = await create_heartbeat(api)
    base = "https://watchpost.example"

    async def detail_now() -> Any:
        return await read(
            app,
            lambda s: heartbeat_detail(
                s, team_id=api.team_id, heartbeat_id=heartbeat.id, public_base=base, now=clock.now()
            ),
        )

    first = await detail_now()
    assert (first.state, first.since, first.pings) == ("pending", clock.now(), [])
    shown = data(await api.get(f"/api/v2/heartbeats/{heartbeat.id}"))["attributes"]["url"]
    assert first.ping_url == base + shown.removeprefix("http://testserver")

    clock.advance(3600)
    assert (await api.get(heartbeat.url)).status_code == 200
    after_ping = await detail_now()
    assert after_ping.state == "up"
    assert [(p.at, p.kind) for p in after_ping.pings] == [(clock.now(), "success")]

    clock.advance(3600)
    assert (await api.post(f"{heartbeat.url}/fail", content=b"disk full")).status_code == 200
    failing = await detail_now()
    assert failing.state == "down" and failing.since == clock.now()
    assert [(p.at, p.kind, p.body) for p in failing.pings] == [
        (clock.now(), "fail", "disk full"),
        (clock.now() - timedelta(hours=1), "success", None),
    ]
    (incident,) = failing.incidents
    assert "disk full" in incident.cause

    clock.advance(1800)
    path = f"/api/v2/heartbeats/{heartbeat.id}/availability"
    latest = await detail_now()
    for name, span in AVAILABILITY_RANGES.items():
        assert latest.availability[name] == await sla(api, path, clock, span), name
    assert latest.availability["24h"] == 80.0  # 30 minutes down of 2.5 hours


async def test_a_heartbeat_in_its_maintenance_window(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    clock.set(datetime(2026, 1, 5, 2, 30, tzinfo=UTC))
    window = {"maintenance_from": "02:00:00", "maintenance_to": "03:00:00"}
    heartbeat = await create_heartbeat(api, **window)
    assert (await api.get(heartbeat.url)).status_code == 200

    async def state_at(hour: int, minute: int) -> str:
        now = datetime(2026, 1, 5, hour, minute, tzinfo=UTC)
        detail = await read(
            app,
            lambda s: heartbeat_detail(
                s, team_id=api.team_id, heartbeat_id=heartbeat.id, public_base="", now=now
            ),
        )
        return str(detail.state)

    assert await state_at(2, 31) == "maintenance"
    assert await state_at(3, 1) == "up"


async def test_a_collector_target_down_with_its_samples(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    collector = await create_collector(api)
    body = target_body("redis", host="127.0.0.1", port=free_port())
    target = await create_target(api, collector["id"], body)
    target_id, collector_id = int(target["id"]), int(collector["id"])
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        for minutes in (1, 2):
            row = metrics.sample_row(
                team_id=api.team_id,
                target_id=target_id,
                at=clock.now() + timedelta(minutes=minutes),
                metrics={"connected_clients": float(minutes), "used_memory": 1e6},
            )
            assert row is not None
            await metrics.add_samples(session, [row])
    clock.advance(600)
    await engine_of(app).tick()  # nothing listens there: down, an incident opens

    async with counted(app) as (session, statements):
        detail = await target_detail(
            session,
            team_id=api.team_id,
            collector_id=collector_id,
            target_id=target_id,
            now=clock.now() + timedelta(minutes=30),
        )
    assert len(statements) == 6
    assert (detail.collector.id, detail.target.id) == (collector_id, target_id)
    assert detail.state == "down" and detail.since == clock.now()
    (check,) = detail.checks
    assert not check.ok and check.error and "refused" in check.error
    assert [s.values["connected_clients"] for s in detail.samples] == [2.0, 1.0]
    assert detail.incidents[0].collector_target_id == target_id
    assert detail.availability["24h"] == 25.0  # down the last 30 of its 40 minutes

    path = f"/api/v1/collectors/{collector_id}/targets/{target_id}"
    data(await api.patch(path, {"enabled": False}))
    disabled = await read(
        app,
        lambda s: target_detail(
            s, team_id=api.team_id, collector_id=collector_id, target_id=target_id, now=clock.now()
        ),
    )
    assert (disabled.state, disabled.since) == ("paused", None)


async def test_another_teams_objects_are_not_found(
    app: FastAPI, api: Api, other_api: Api, clock: FrozenClock
) -> None:
    monitor_id = int((await create_monitor(api))["id"])
    heartbeat = await create_heartbeat(api)
    collector = await create_collector(api)
    target = await create_target(api, collector["id"], target_body("redis"))
    target_id, collector_id = int(target["id"]), int(collector["id"])
    other_collector = int((await create_collector(api))["id"])
    now = clock.now()
    readers: list[Callable[[AsyncSession], Awaitable[Any]]] = [
        lambda s: monitor_detail(s, team_id=other_api.team_id, monitor_id=monitor_id, now=now),
        lambda s: monitor_detail(s, team_id=api.team_id, monitor_id=monitor_id + 1000, now=now),
        lambda s: heartbeat_detail(
            s, team_id=other_api.team_id, heartbeat_id=heartbeat.id, public_base="", now=now
        ),
        lambda s: target_detail(
            s, team_id=other_api.team_id, collector_id=collector_id, target_id=target_id, now=now
        ),
        lambda s: target_detail(
            s, team_id=api.team_id, collector_id=other_collector, target_id=target_id, now=now
        ),
    ]
    for reader in readers:
        with pytest.raises(NotFound):
            await read(app, reader)
    found = await read(
        app, lambda s: monitor_detail(s, team_id=api.team_id, monitor_id=monitor_id, now=now)
    )
    assert found.monitor.id == monitor_id
