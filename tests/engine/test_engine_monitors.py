"""The engine checks monitors: first check at once, on schedule after, status and incidents."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from tests.factories.engine import change, engine_of, load, recording_server
from tests.factories.monitors import MONITORS, create_monitor
from tests.factories.servers import ipv6_loopback, silent_server
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.engine import checks
from watchpost.engine.schedule import next_slot
from watchpost.incidents.models import Incident
from watchpost.monitors.models import Monitor
from watchpost.probes.base import ProbeResult
from watchpost.probes.monitors.check import UNSUPPORTED
from watchpost.probes.running import CheckInput, run_monitor_check


async def monitor_at(api: Api, url: str, **fields: Any) -> str:
    created = await create_monitor(
        api, url=url, check_frequency=60, confirmation_period=0, recovery_period=0, **fields
    )
    return str(created["id"])


async def test_a_new_monitor_is_checked_at_the_first_tick(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url(f"/m/{1}"))
        report = await engine_of(app).tick()
        assert (report.claimed, report.applied) == (1, 1)
        assert server.hits == {"/m/1": 1}
    attributes = data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]
    assert attributes["status"] == "up"
    assert attributes["last_checked_at"] == isoformat_ms(clock.now())
    row = await load(app, Monitor, monitor_id)
    assert row.next_check_at == next_slot("monitor", row.id, 60, after=clock.now())
    assert (row.lease_owner, row.lease_expires_at) == (None, None)


async def test_nothing_runs_before_it_is_due(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        engine = engine_of(app)
        await engine.tick()
        due = (await load(app, Monitor, monitor_id)).next_check_at
        clock.set(due - timedelta(milliseconds=1))
        assert (await engine.tick()).claimed == 0
        clock.set(due)
        assert (await engine.tick()).applied == 1
        assert server.hits["/m"] == 2


async def test_no_drift_when_checks_take_time(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    async def slow(check: CheckInput, timeout: float) -> ProbeResult:
        result = await run_monitor_check(check, timeout)
        clock.advance(7.25)  # the check "takes" 7.25 s of the engine's clock
        return result

    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        engine = engine_of(app)
        engine.runners["monitor"] = slow
        await engine.tick()
        first = (await load(app, Monitor, monitor_id)).next_check_at
        for k in range(20):
            clock.set(first + timedelta(seconds=60 * k))
            report = await engine.tick()
            assert report.claims[0].due == first + timedelta(seconds=60 * k)
            row = await load(app, Monitor, monitor_id)
            assert row.next_check_at == first + timedelta(seconds=60 * (k + 1))
            assert row.last_checked_at == clock.now()
        assert server.hits["/m"] == 21


async def test_missed_slots_are_skipped_not_replayed(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        engine = engine_of(app)
        await engine.tick()
        slot = (await load(app, Monitor, monitor_id)).next_check_at
        clock.set(slot + timedelta(seconds=3.5 * 60))  # the engine was away for 3.5 intervals
        assert (await engine.tick()).applied == 1
        assert (await engine.tick()).claimed == 0
        row = await load(app, Monitor, monitor_id)
        assert row.next_check_at == slot + timedelta(seconds=4 * 60)
        assert server.hits["/m"] == 2


async def test_paused_monitors_are_not_checked_until_resumed(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"), paused=True)
        engine = engine_of(app)
        clock.advance(3600)
        assert (await engine.tick()).claimed == 0
        data(await api.patch(f"{MONITORS}/{monitor_id}", {"paused": False}))
        assert (await engine.tick()).applied == 1
        assert server.hits["/m"] == 1


async def test_a_changed_monitor_is_checked_at_once_and_a_running_check_is_void(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/old"))
        engine = engine_of(app)
        await engine.tick()
        clock.set((await load(app, Monitor, monitor_id)).next_check_at)
        jobs = await engine.claim(clock.now(), 10)
        data(await api.patch(f"{MONITORS}/{monitor_id}", {"url": server.url("/new")}))
        late = [await engine.execute(job) for job in jobs]
        assert (await engine.write(late)).discarded == 1  # its settings were outdated
        assert (await engine.tick()).applied == 1
        assert server.hits == {"/old": 2, "/new": 1}


async def incidents_of(app: FastAPI, monitor_id: str) -> list[Incident]:
    async with app.state.ctx.db.read_sessions() as session:
        found = await session.scalars(
            select(Incident).where(Incident.monitor_id == int(monitor_id)).order_by(Incident.id)
        )
        return list(found)


async def test_down_opens_an_incident_with_the_cause_and_recovery_resolves_it(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        server.status["/m"] = 503
        monitor_id = await monitor_at(api, server.url("/m"))
        engine = engine_of(app)
        await engine.tick()
        attributes = data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]
        assert attributes["status"] == "down"
        [incident] = await incidents_of(app, monitor_id)
        assert incident.resolved_at is None and "503" in incident.cause

        clock.set((await load(app, Monitor, monitor_id)).next_check_at)
        await engine.tick()  # still down: the same incident, no second one
        assert len(await incidents_of(app, monitor_id)) == 1

        server.status["/m"] = 200
        clock.set((await load(app, Monitor, monitor_id)).next_check_at)
        await engine.tick()
        attributes = data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]
        assert attributes["status"] == "up"
        [incident] = await incidents_of(app, monitor_id)
        assert incident.resolved_at == clock.now()


async def test_in_a_maintenance_window_nothing_runs_and_the_next_check_is_at_its_end(
    app: FastAPI, api: Api, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    window_end = clock.now() + timedelta(minutes=30)

    def maintenance_until(monitor: Monitor, at: datetime) -> datetime | None:
        return window_end if at < window_end else None

    monkeypatch.setattr(checks, "maintenance_end", maintenance_until)
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        engine = engine_of(app)
        assert (await engine.tick()).applied == 1
        assert server.hits["/m"] == 0
        attributes = data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]
        assert attributes["status"] == "maintenance"
        assert attributes["last_checked_at"] is None
        assert (await load(app, Monitor, monitor_id)).next_check_at == window_end
        clock.set(window_end)
        await engine.tick()
        assert server.hits["/m"] == 1
        assert data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]["status"] == "up"


async def test_unsupported_checks_leave_the_status_alone(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async def cannot_run(check: CheckInput, timeout: float) -> ProbeResult:
        return ProbeResult(ok=False, latency_ms=0.0, error="no runtime", details={UNSUPPORTED: "x"})

    monitor_id = await monitor_at(api, "https://example.com")
    engine = engine_of(app)
    engine.runners["monitor"] = cannot_run
    assert (await engine.tick()).applied == 1
    attributes = data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]
    assert attributes["status"] == "pending"
    assert attributes["last_checked_at"] == isoformat_ms(clock.now())


async def test_a_deleted_monitor_s_running_check_is_dropped(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        engine = engine_of(app)
        jobs = await engine.claim(clock.now(), 10)
        assert (await api.delete(f"{MONITORS}/{monitor_id}")).status_code == 204
        outcomes = [await engine.execute(job) for job in jobs]
        report = await engine.write(outcomes)
        assert (report.applied, report.discarded) == (0, 1)


async def test_the_request_timeout_of_network_types_is_in_milliseconds(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    created = await create_monitor(api, "tcp", url="127.0.0.1", port="9", request_timeout=500)
    await change(app, Monitor, created["id"], next_check_at=clock.now())
    engine = engine_of(app)
    [job] = await engine.claim(clock.now(), 10)
    assert job.timeout == 0.5
    margin = app.state.ctx.settings.engine_lease_margin
    # the lease does not depend on the timeout: the engine renews it while the check runs
    assert job.claim.lease_expires_at == clock.now() + timedelta(seconds=margin)
    await engine.write([await engine.execute(job)])


async def test_a_real_maintenance_window_skips_checks_until_it_ends(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    clock.set(datetime(2026, 1, 1, 0, 30, tzinfo=clock.now().tzinfo))
    async with recording_server() as server:
        monitor_id = await monitor_at(
            api,
            server.url("/m"),
            maintenance_from="23:00:00",
            maintenance_to="01:00:00",
            maintenance_timezone="UTC",
        )
        engine = engine_of(app)
        await engine.tick()
        assert server.hits["/m"] == 0
        assert data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]["status"] == (
            "maintenance"
        )
        window_end = datetime(2026, 1, 1, 1, 0, tzinfo=clock.now().tzinfo)
        assert (await load(app, Monitor, monitor_id)).next_check_at == window_end
        clock.set(window_end)
        await engine.tick()
        assert server.hits["/m"] == 1
        assert data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]["status"] == "up"


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine")
@pytest.mark.parametrize("host", ["::1", "[::1]"])
async def test_a_tcp_monitor_of_an_ipv6_address_connects(app: FastAPI, api: Api, host: str) -> None:
    async with silent_server("::1") as port:
        created = await create_monitor(
            api, monitor_type="tcp", url=host, port=str(port), confirmation_period=0
        )
        assert created["attributes"]["url"] == host  # kept as the client wrote it
        await engine_of(app).tick()
    attributes = data(await api.get(f"{MONITORS}/{created['id']}"))["attributes"]
    assert (attributes["status"], attributes["last_error"]) == ("up", None)
