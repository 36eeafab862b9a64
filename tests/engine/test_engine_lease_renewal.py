"""Lease renewal: a live engine keeps its checks in flight, however long they take; a dead
one's are taken over one margin after its last renewal; a result written after the lease
was lost changes nothing at all."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import ColumnElement, func, select

from tests.factories.api import Api
from tests.factories.engine import engine_of, load, recording_server
from tests.factories.monitors import MONITORS, create_monitor
from tests.factories.objects import create_collector, create_target, target_body
from tests.factories.servers import free_port, tcp_server
from watchpost.clock import FrozenClock
from watchpost.collectors.models import Collector, CollectorTarget
from watchpost.engine.checks import Job
from watchpost.engine.claims import Claim
from watchpost.engine.loop import Engine
from watchpost.history.models import CheckResult
from watchpost.incidents.models import Incident
from watchpost.monitors.models import Monitor
from watchpost.probes.base import ProbeResult
from watchpost.probes.running import CheckInput, run_monitor_check


async def monitor_at(api: Api, url: str) -> int:
    created = await create_monitor(
        api, url=url, check_frequency=60, confirmation_period=0, recovery_period=0
    )
    return int(created["id"])


async def count(app: FastAPI, model: Any, *where: ColumnElement[bool]) -> int:
    async with app.state.ctx.db.read_sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model).where(*where)))


async def history_of(app: FastAPI, subject_type: str, subject_id: int) -> int:
    return await count(
        app,
        CheckResult,
        CheckResult.subject_type == subject_type,
        CheckResult.subject_id == subject_id,
    )


class Gate:
    """A monitor runner that holds every check until opened, then runs the real probe."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.open = asyncio.Event()

    async def __call__(self, check: CheckInput, timeout: float) -> ProbeResult:
        self.started.set()
        await self.open.wait()
        return await run_monitor_check(check, timeout)


async def test_renewal_keeps_a_long_check_s_lease_past_its_first_expiry(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        gate = Gate()
        slow, other = engine_of(app, "slow", runners={"monitor": gate}), engine_of(app, "other")
        start = clock.now()
        ticking = asyncio.create_task(slow.tick())
        await asyncio.wait_for(gate.started.wait(), 10)

        for _ in range(6):  # two whole leases' worth of time, renewed every third of one
            clock.advance(slow.renew_every)
            assert await slow.renew(clock.now()) == 1
            row = await load(app, Monitor, monitor_id)
            assert (row.lease_owner, row.lease_expires_at) == ("slow", clock.now() + slow.lease)
            assert (await other.tick()).claimed == 0
        assert clock.now() > start + slow.lease  # past the lease the claim had

        gate.open.set()
        report = await asyncio.wait_for(ticking, 30)
        assert (report.claimed, report.applied) == (1, 1)
        assert server.hits["/m"] == 1  # checked once: the other engine never ran it
    row = await load(app, Monitor, monitor_id)
    assert (row.status, row.last_checked_at, row.lease_owner) == ("up", clock.now(), None)


async def test_a_worker_that_stops_renewing_loses_its_checks_to_another(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        dead, alive = engine_of(app, "dead"), engine_of(app, "alive")
        [job] = await dead.claim(clock.now(), 10)
        clock.advance(dead.renew_every)
        assert await dead.renew(clock.now()) == 1  # its last sign of life
        renewed_until = clock.now() + dead.lease

        clock.set(renewed_until)
        assert (await alive.tick()).claimed == 0  # not before the renewed lease expires
        clock.advance(0.001)
        report = await alive.tick()
        assert (report.claimed, report.applied) == (1, 1)
        assert report.claims[0].due == job.claim.due
        assert server.hits["/m"] == 1
        # Renewing cannot take a lost lease back.
        assert await dead.renew(clock.now()) == 0
    row = await load(app, Monitor, monitor_id)
    assert (row.status, row.last_checked_at, row.lease_owner) == ("up", clock.now(), None)


class Stalled(Engine):
    """An engine whose claim takes `stall` (the clock moves on between its transaction and
    the checks' start); `rival`, if set, claims and runs what is due meanwhile."""

    clock: FrozenClock
    stall: float
    rival: Engine | None = None

    def _prepare(self, claimed: list[Claim], now: datetime) -> list[Job]:
        self.clock.advance(self.stall)
        return super()._prepare(claimed, now)

    async def _renew(self, claims: list[Claim], now: datetime) -> set[tuple[str, int]]:
        if self.rival is not None:
            assert (await self.rival.tick()).applied == 1
            self.rival = None
        return await super()._renew(claims, now)


def stalled(app: FastAPI, clock: FrozenClock, stall: float, **kwargs: Any) -> Stalled:
    engine = Stalled(app.state.ctx, owner="stalled", **kwargs)
    engine.clock, engine.stall = clock, stall
    return engine


async def test_a_claim_slower_than_a_lease_runs_only_the_checks_it_still_holds(
    app: FastAPI, api: Api, clock: FrozenClock, caplog: pytest.LogCaptureFixture
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        engine = stalled(app, clock, stall=0)
        engine.stall = engine.lease.total_seconds() + 1  # its leases ran out before a start
        engine.rival = engine_of(app, "rival")  # ... and another worker took the check
        report = await engine.tick()
        assert (report.claimed, report.applied) == (0, 0)
        assert server.hits["/m"] == 1  # run once, by the rival
        assert await engine.renew(clock.now()) == 0  # nothing left in flight
        took = f"{engine.stall:.1f}"
        assert f"a claim took {took} s; 1 of its checks left to others" in caplog.messages
    row = await load(app, Monitor, monitor_id)
    assert (row.status, row.last_checked_at, row.lease_owner) == ("up", clock.now(), None)


@pytest.mark.parametrize("thirds", [0.9, 1.0])
async def test_a_slow_claim_renews_its_leases_before_the_checks_start(
    app: FastAPI, api: Api, clock: FrozenClock, thirds: float
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        gate = Gate()
        engine = stalled(app, clock, stall=0, runners={"monitor": gate})
        engine.stall = engine.renew_every * thirds  # of a lease, gone before the start
        claimed_at = clock.now()
        ticking = asyncio.create_task(engine.tick())
        await asyncio.wait_for(gate.started.wait(), 10)
        row = await load(app, Monitor, monitor_id)
        renewed_at = clock.now() if thirds >= 1 else claimed_at  # else the claim's lease
        assert (row.lease_owner, row.lease_expires_at) == ("stalled", renewed_at + engine.lease)
        gate.open.set()
        assert (await asyncio.wait_for(ticking, 30)).applied == 1
        assert server.hits["/m"] == 1


async def test_a_late_monitor_result_after_the_lease_was_lost_changes_nothing(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/m"))
        late, alive = engine_of(app, "late"), engine_of(app, "alive")
        [job] = await late.claim(clock.now(), 10)
        server.status["/m"] = 500
        failed = await late.execute(job)  # a failure that would open an incident...
        assert failed.result is not None and not failed.result.ok

        clock.set(job.claim.lease_expires_at)  # ... but "late" never renews nor writes it
        clock.advance(0.001)
        server.status["/m"] = 200
        assert (await alive.tick()).applied == 1
        taken_over = await load(app, Monitor, monitor_id)
        assert taken_over.status == "up"
        assert await history_of(app, "monitor", monitor_id) == 1

        clock.advance(1)
        report = await late.write([failed])
        assert (report.applied, report.discarded) == (0, 1)
    row = await load(app, Monitor, monitor_id)
    columns = ("status", "check_status", "last_checked_at", "next_check_at", "last_error")
    assert [getattr(row, name) for name in columns] == [
        getattr(taken_over, name) for name in columns
    ]
    assert (row.lease_owner, row.lease_expires_at, row.failing_since) == (None, None, None)
    assert await count(app, Incident, Incident.monitor_id == monitor_id) == 0
    assert await history_of(app, "monitor", monitor_id) == 1


async def test_a_late_target_result_after_the_lease_was_lost_changes_nothing(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    collector = await create_collector(api)
    body = target_body("redis", host="127.0.0.1", port=free_port())
    target_id = int((await create_target(api, collector["id"], body))["id"])
    late, alive = engine_of(app, "late"), engine_of(app, "alive")
    [job] = await late.claim(clock.now(), 10)
    failed = await late.execute(job)  # refused: a failure

    clock.set(job.claim.lease_expires_at)
    clock.advance(0.001)
    assert (await alive.tick()).applied == 1  # down, with its incident
    taken_over = await load(app, CollectorTarget, target_id)
    assert (taken_over.status, taken_over.consecutive_failure_count) == ("down", 1)

    clock.advance(1)
    assert (await late.write([failed])).discarded == 1
    row = await load(app, CollectorTarget, target_id)
    assert (row.status, row.consecutive_failure_count) == ("down", 1)  # not counted twice
    assert (row.next_check_at, row.last_error) == (taken_over.next_check_at, taken_over.last_error)
    assert row.lease_owner is None
    assert await count(app, Incident, Incident.collector_target_id == target_id) == 1
    assert await history_of(app, "collector_target", target_id) == 1
    assert (await load(app, Collector, int(collector["id"]))).status == "down"


async def test_an_engine_never_runs_a_check_it_still_has_in_flight_again(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor_id = await monitor_at(api, "https://example.com")
    engine = engine_of(app)
    [job] = await engine.claim(clock.now(), 10)
    # Its lease lapsed (no renewal got through) and nobody else took the check: claiming it
    # again only renews the lease; the check running already is the one that counts.
    clock.set(job.claim.lease_expires_at)
    clock.advance(0.001)
    assert await engine.claim(clock.now(), 10) == []
    row = await load(app, Monitor, monitor_id)
    assert (row.lease_owner, row.lease_expires_at) == ("engine-a", clock.now() + engine.lease)
    assert await engine.renew(clock.now()) == 1  # still in flight, still renewed


async def test_a_void_result_leaves_the_lease_of_the_newer_claim_alone(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = await monitor_at(api, server.url("/old"))
        engine = engine_of(app)
        [old] = await engine.claim(clock.now(), 10)
        old_outcome = await engine.execute(old)
        clock.advance(1)
        # A change of settings voids the running check and makes the monitor due at once ...
        patched = await api.patch(f"{MONITORS}/{monitor_id}", {"url": server.url("/new")})
        assert patched.status_code == 200
        [new] = await engine.claim(clock.now(), 10)  # ... so this engine claims it again
        assert new.claim.due == clock.now() != old.claim.due

        assert (await engine.write([old_outcome])).discarded == 1
        row = await load(app, Monitor, monitor_id)
        assert (row.lease_owner, row.lease_expires_at) == ("engine-a", new.claim.lease_expires_at)
        assert await engine_of(app, "other").claim(clock.now(), 10) == []
        assert await engine.renew(clock.now()) == 1  # the newer claim is still renewed

        assert (await engine.write([await engine.execute(new)])).applied == 1
        assert server.hits == {"/old": 1, "/new": 1}
    assert (await load(app, Monitor, monitor_id)).last_checked_at == clock.now()


# PostgreSQL only: SQLite runs one write transaction at a time, so no row is held meanwhile.
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_renewing_skips_a_row_another_transaction_holds_instead_of_waiting(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    busy, free = [await monitor_at(api, "https://example.com") for _ in range(2)]
    engine = engine_of(app)
    leases = {
        job.claim.id: job.claim.lease_expires_at for job in await engine.claim(clock.now(), 10)
    }
    clock.advance(1)
    # The engine's own writer (or a change of the monitor) holds `busy`: renewing must not
    # wait for it (nor deadlock with it) — that row's lease ends with that transaction.
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await session.execute(select(Monitor.id).where(Monitor.id == busy).with_for_update())
        assert await asyncio.wait_for(engine.renew(clock.now()), 10) == 1
    assert (await load(app, Monitor, busy)).lease_expires_at == leases[busy]
    assert (await load(app, Monitor, free)).lease_expires_at == clock.now() + engine.lease


class Watched(Engine):
    """An engine that reports each renewal made at or after `wanted`."""

    wanted: datetime
    renewed: asyncio.Event

    async def renew(self, now: datetime) -> int:
        held = await super().renew(now)
        if held and now >= self.wanted:
            self.renewed.set()
        return held


async def test_the_running_engine_renews_its_leases_by_itself(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor_id = await monitor_at(api, "https://example.com")
    gate = Gate()
    engine = Watched(app.state.ctx, owner="engine-a", runners={"monitor": gate})
    engine.renewed, engine.wanted = asyncio.Event(), clock.now() + 10 * engine.lease
    engine.renew_every = 0.01  # real seconds between renewals (the clock stands still)
    engine.shutdown_grace = 0.0
    running = asyncio.create_task(engine.run_forever())
    try:
        await asyncio.wait_for(gate.started.wait(), 10)
        clock.set(engine.wanted)  # ten leases later, the check still runs
        await asyncio.wait_for(engine.renewed.wait(), 10)
        row = await load(app, Monitor, monitor_id)
        assert (row.lease_owner, row.lease_expires_at) == ("engine-a", clock.now() + engine.lease)
        assert await engine_of(app, "other").claim(clock.now(), 10) == []
    finally:
        engine.stop()
        await asyncio.wait_for(running, 10)
    assert (await load(app, Monitor, monitor_id)).lease_owner is None  # released on stop


async def test_a_check_sends_its_request_once_even_when_the_connection_is_dropped(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    requests: list[str] = []

    async def drops(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        requests.append((await reader.readline()).decode())
        while (await reader.readline()).strip():
            pass
        # Reset instead of answering: the HTTP client must not quietly send it again.
        writer.transport.abort()

    async with tcp_server(drops) as port:
        plain = await monitor_at(api, f"http://127.0.0.1:{port}/plain")
        cookies = await create_monitor(
            api, url=f"http://127.0.0.1:{port}/cookies", remember_cookies=True
        )
        assert (await engine_of(app).tick()).applied == 2
    assert sorted(line.split(" ")[1] for line in requests) == ["/cookies", "/plain"]
    for monitor_id in (plain, cookies["id"]):
        row = await load(app, Monitor, monitor_id)
        assert row.status == "down" and row.last_error is not None
