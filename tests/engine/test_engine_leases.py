"""Leases: a claimed check belongs to one worker until it finishes or its lease expires."""

from __future__ import annotations

from datetime import timedelta

from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.engine import engine_of, load, recording_server
from tests.factories.monitors import create_monitor
from watchpost.clock import FrozenClock
from watchpost.monitors.models import Monitor


async def due_monitors(api: Api, url: str, count: int) -> list[str]:
    return [
        str((await create_monitor(api, url=url, check_frequency=60, request_timeout=5))["id"])
        for _ in range(count)
    ]


async def test_a_lease_lasts_the_margin_and_the_row_keeps_its_due_time(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    [monitor_id] = await due_monitors(api, "https://example.com", 1)
    [job] = await engine_of(app).claim(clock.now(), 10)
    margin = app.state.ctx.settings.engine_lease_margin
    # not the check's timeout: a live engine renews the lease while the check is in flight
    assert job.claim.lease_expires_at == clock.now() + timedelta(seconds=margin)
    row = await load(app, Monitor, monitor_id)
    assert (row.lease_owner, row.lease_expires_at) == ("engine-a", job.claim.lease_expires_at)
    assert row.next_check_at == job.claim.due == clock.now()  # the row keeps its due time


async def test_two_workers_never_claim_the_same_check(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    await due_monitors(api, "https://example.com", 5)
    first = await engine_of(app, "a").claim(clock.now(), 3)
    second = await engine_of(app, "b").claim(clock.now(), 10)
    assert len(first) == 3 and len(second) == 2
    assert not {j.claim.id for j in first} & {j.claim.id for j in second}
    assert await engine_of(app, "c").claim(clock.now(), 10) == []


async def test_a_dead_worker_s_checks_are_taken_over_after_its_lease_expires(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        [monitor_id] = await due_monitors(api, server.url("/m"), 1)
        dead, alive = engine_of(app, "dead"), engine_of(app, "alive")
        [job] = await dead.claim(clock.now(), 10)  # ... and never finishes

        clock.set(job.claim.lease_expires_at)
        assert (await alive.tick()).claimed == 0  # not before the lease has expired
        clock.advance(0.001)
        report = await alive.tick()
        assert (report.claimed, report.applied) == (1, 1)
        assert report.claims[0].due == job.claim.due  # the same due time, checked once
        after_takeover = await load(app, Monitor, monitor_id)
        assert after_takeover.last_checked_at == clock.now()
        assert server.hits["/m"] == 1

        # The "dead" worker was only slow: its late result is not applied a second time.
        clock.advance(1)
        late = await dead.execute(job)
        report_late = await dead.write([late])
        assert (report_late.applied, report_late.discarded) == (0, 1)
        row = await load(app, Monitor, monitor_id)
        assert row.last_checked_at == after_takeover.last_checked_at
        assert row.next_check_at == after_takeover.next_check_at
        assert row.lease_owner is None


async def test_a_result_is_applied_once_even_if_written_twice(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        [monitor_id] = await due_monitors(api, server.url("/m"), 1)
        engine = engine_of(app)
        [job] = await engine.claim(clock.now(), 10)
        outcome = await engine.execute(job)
        assert (await engine.write([outcome, outcome])).applied == 1
        first = await load(app, Monitor, monitor_id)
        assert (await engine.write([outcome])).discarded == 1
        assert (await load(app, Monitor, monitor_id)).next_check_at == first.next_check_at


async def test_released_leases_are_taken_at_once(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    await due_monitors(api, "https://example.com", 2)
    stopping = engine_of(app, "stopping")
    assert len(await stopping.claim(clock.now(), 10)) == 2
    await stopping.release_all()
    assert len(await engine_of(app, "other").claim(clock.now(), 10)) == 2


async def test_stopping_the_loop_releases_the_leases_of_unfinished_checks(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    import asyncio

    from watchpost.probes.base import ProbeResult
    from watchpost.probes.running import CheckInput

    [monitor_id] = await due_monitors(api, "https://example.com", 1)
    started = asyncio.Event()

    async def hangs(check: CheckInput, timeout: float) -> ProbeResult:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    engine = engine_of(app)
    engine.runners["monitor"] = hangs
    engine.shutdown_grace = 0.0
    running = asyncio.create_task(engine.run_forever())
    await asyncio.wait_for(started.wait(), 10)
    assert (await load(app, Monitor, monitor_id)).lease_owner == "engine-a"
    engine.stop()
    await asyncio.wait_for(running, 10)
    row = await load(app, Monitor, monitor_id)
    assert (row.lease_owner, row.next_check_at, row.last_checked_at) == (None, clock.now(), None)


async def test_each_tick_runs_the_sweeps_such_as_overdue_heartbeats(
    app: FastAPI, api: Api, client: object, clock: FrozenClock
) -> None:
    import httpx

    from tests.factories.heartbeats import create_heartbeat, row

    assert isinstance(client, httpx.AsyncClient)
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    engine = engine_of(app)
    await engine.tick()
    assert (await row(app, made.id)).status == "up"
    clock.advance(timedelta(days=1))
    assert (await engine.tick()).swept >= 1  # also counts the heartbeat observations
    assert (await row(app, made.id)).status == "down"
