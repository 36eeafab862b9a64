"""The hosted attributes Watchpost has the behaviour of, honoured by the engine: a Rails
maintenance_timezone, http_method in either case, a mail monitor's list of ports, a
heartbeat's server_timezone across a DST change."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import httpx
from aiohttp import web
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import smtp_server
from tests.factories.engine import engine_of, load
from tests.factories.heartbeats import create_heartbeat, row
from tests.factories.monitors import MONITORS, create_monitor
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.heartbeats.checking import deadline_after, sweep_overdue
from watchpost.heartbeats.models import Heartbeat
from watchpost.monitors.models import Monitor
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.running import run_monitor_check


@asynccontextmanager
async def method_server() -> AsyncIterator[tuple[str, list[str]]]:
    """An HTTP server answering 200 to every request; yields its URL and the methods seen."""
    seen: list[str] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append(request.method)
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/probe", seen
    finally:
        await runner.cleanup()


async def test_http_method_in_either_case_is_the_method_sent(app: FastAPI, api: Api) -> None:
    async with method_server() as (url, seen):
        for method in ("post", "POST", "Patch", "HEAD"):
            await create_monitor(api, url=url, http_method=method)
        report = await engine_of(app).tick()
        assert report.applied == 4
    assert sorted(seen) == ["HEAD", "PATCH", "POST", "POST"]
    methods = [m["attributes"]["http_method"] for m in (await api.get(MONITORS)).json()["data"]]
    assert methods == ["post", "POST", "Patch", "HEAD"]


async def test_a_rails_maintenance_timezone_pauses_checks_in_that_zones_window(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    # 01:00-02:00 in "Berlin" (CET in January, UTC+1) is 00:00-01:00 UTC
    clock.set(datetime(2026, 1, 14, 0, 30, tzinfo=UTC))
    async with method_server() as (url, seen):
        created = await create_monitor(
            api,
            url=url,
            check_frequency=60,
            maintenance_from="01:00:00",
            maintenance_to="02:00:00",
            maintenance_timezone="Berlin",
        )
        engine = engine_of(app)
        await engine.tick()
        assert seen == []
        path = f"{MONITORS}/{created['id']}"
        attributes = data(await api.get(path))["attributes"]
        assert (attributes["status"], attributes["maintenance_timezone"]) == (
            "maintenance",
            "Berlin",
        )
        window_end = datetime(2026, 1, 14, 1, 0, tzinfo=UTC)
        assert (await load(app, Monitor, created["id"])).next_check_at == window_end
        clock.set(window_end)
        await engine.tick()
        assert seen == ["GET"]
        assert data(await api.get(path))["attributes"]["status"] == "up"


async def test_eastern_time_follows_its_own_dst(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    # 12:00-13:00 "Eastern Time (US & Canada)" is 16:00-17:00 UTC in July (EDT, UTC-4)
    clock.set(datetime(2026, 7, 1, 16, 15, tzinfo=UTC))
    async with method_server() as (url, seen):
        await create_monitor(
            api,
            url=url,
            maintenance_from="12:00:00",
            maintenance_to="13:00:00",
            maintenance_timezone="Eastern Time (US & Canada)",
        )
        await engine_of(app).tick()
    assert seen == []


async def test_a_mail_monitor_checks_every_port_of_its_list() -> None:
    with smtp_server() as first, smtp_server() as second:
        both = MonitorCheck(
            monitor_type="smtp",
            url="127.0.0.1",
            timeout=5.0,
            port=f"{first.port},{second.port}",
        )
        assert (await run_monitor_check(both, 5.0)).ok
        with_closed = MonitorCheck(
            monitor_type="smtp", url="127.0.0.1", timeout=5.0, port=f"{first.port},9"
        )
        result = await run_monitor_check(with_closed, 5.0)
    assert not result.ok
    assert result.error is not None and "9" in result.error


async def _sweep(app: FastAPI, at: datetime) -> int:
    ctx: AppContext = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        return await sweep_overdue(session, now=at)


async def test_server_timezone_keeps_a_daily_job_due_at_the_same_local_time(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    # Saturday 04:00 in Berlin (CEST, UTC+2); the clocks go back on Sunday 25 October, so the
    # job's next run, Sunday 04:00 CET, is 25 hours later: 03:00 UTC.
    clock.set(datetime(2026, 10, 24, 2, 0, tzinfo=UTC))
    zoned = await create_heartbeat(
        api, period=86_400, grace=60, server_timezone="Europe/Berlin", name="zoned"
    )
    plain = await create_heartbeat(api, period=86_400, grace=60, name="plain")
    for made in (zoned, plain):
        assert (await client.get(made.url)).status_code == 200
    local_next = datetime(2026, 10, 25, 3, 1, tzinfo=UTC)
    assert (await row(app, zoned.id)).next_due_at == local_next
    assert (await row(app, plain.id)).next_due_at == datetime(2026, 10, 25, 2, 1, tzinfo=UTC)
    assert await _sweep(app, datetime(2026, 10, 25, 2, 30, tzinfo=UTC)) == 1  # plain only
    assert (await row(app, zoned.id)).status == "up"
    clock.set(datetime(2026, 10, 25, 3, 0, tzinfo=UTC))  # the job runs at 04:00 CET
    assert (await client.get(zoned.url)).status_code == 200
    assert (await row(app, zoned.id)).next_due_at == datetime(2026, 10, 26, 3, 1, tzinfo=UTC)


def test_deadline_after_follows_wall_clock_time_in_spring_too() -> None:
    heartbeat = Heartbeat(period=86_400, grace=0, server_timezone="Eastern Time (US & Canada)")
    # Saturday 7 March 2026 02:30 EST; 02:30 on Sunday does not exist (the clocks jump to
    # 03:00 EDT): due when they jump, 07:00 UTC.
    start = datetime(2026, 3, 7, 7, 30, tzinfo=UTC)
    assert deadline_after(heartbeat, start) == datetime(2026, 3, 8, 7, 0, tzinfo=UTC)
    heartbeat.server_timezone = None
    assert deadline_after(heartbeat, start) == start + timedelta(days=1)
