"""Bursts spread: monitors created together, or left unchecked by downtime, are not checked
all at once but over their interval (engine/schedule.py, `spread`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.engine import engine_of, load
from tests.factories.monitors import create_monitor
from watchpost.clock import FrozenClock
from watchpost.engine.schedule import (
    OFF_SCHEDULE_PER_CLAIM,
    next_slot,
    on_schedule,
    phase_ms,
    spread,
)
from watchpost.monitors.models import Monitor
from watchpost.probes.base import ProbeResult
from watchpost.probes.running import CheckInput

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
INTERVAL = 30
BURST = 40


async def up(check: CheckInput, timeout: float) -> ProbeResult:
    return ProbeResult(ok=True, latency_ms=1.0)


def test_consecutive_ids_spread_evenly_over_the_interval() -> None:
    for first in (1, 1_000, 987_654):
        phases = sorted(phase_ms("monitor", i, INTERVAL) for i in range(first, first + 200))
        ends = [*phases[1:], phases[0] + INTERVAL * 1000]
        gaps = [b - a for a, b in zip(phases, ends, strict=True)]
        even = INTERVAL * 1000 / 200
        assert max(gaps) < 3 * even  # three gap sizes at most (Fibonacci hashing)


def test_a_check_is_on_schedule_at_its_slot_until_the_next_one() -> None:
    slot = next_slot("monitor", 7, INTERVAL, after=T0)
    assert on_schedule("monitor", 7, INTERVAL, due=slot, now=slot + timedelta(seconds=29))
    late = slot + timedelta(seconds=INTERVAL)
    assert not on_schedule("monitor", 7, INTERVAL, due=slot, now=late)  # catch-up
    off_grid = slot + timedelta(milliseconds=1)  # a first check, a recheck
    assert not on_schedule("monitor", 7, INTERVAL, due=off_grid, now=off_grid)


def test_spread_runs_every_check_on_schedule_and_a_few_off_it() -> None:
    def row(object_id: int, due: datetime) -> SimpleNamespace:
        return SimpleNamespace(id=object_id, next_check_at=due)

    on = [row(i, next_slot("monitor", i, INTERVAL, after=T0)) for i in (1, 2)]
    off = [row(i, T0) for i in range(3, 10)]
    now = max(r.next_check_at for r in on)
    run, moved, room = spread(
        "monitor", [*on, *off], interval_s=lambda _row: INTERVAL, now=now, room=3
    )
    assert [r.id for r in run] == [1, 2, 3, 4, 5] and room == 0
    assert [(r.id, slot) for r, slot in moved] == [
        (r.id, next_slot("monitor", r.id, INTERVAL, after=now)) for r in off[3:]
    ]


async def checked_per_second(app: FastAPI, clock: FrozenClock, seconds: int) -> list[int]:
    """Tick once a second for `seconds`; how many checks each tick started."""
    engine = engine_of(app, runners={"monitor": up})
    claimed = []
    for _ in range(seconds):
        claimed.append((await engine.tick()).claimed)
        clock.advance(1)
    return claimed


async def test_monitors_created_together_are_checked_over_their_interval(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    ids = [
        (await create_monitor(api, url="https://example.com", check_frequency=INTERVAL))["id"]
        for _ in range(BURST)
    ]
    created = clock.now()
    claimed = await checked_per_second(app, clock, INTERVAL + 1)
    assert claimed[0] == OFF_SCHEDULE_PER_CLAIM  # a few at once, the rest on their slots
    # within the interval: every monitor once, and those checked at once again at their slot
    assert sum(claimed) == BURST + OFF_SCHEDULE_PER_CLAIM
    assert max(claimed[1:]) <= 3  # evenly: 40 over 30 s
    for monitor_id in ids:
        row = await load(app, Monitor, monitor_id)
        assert row.last_checked_at is not None
        assert row.last_checked_at - created <= timedelta(seconds=INTERVAL)


async def test_after_downtime_the_catch_up_is_spread_too(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    for _ in range(BURST):
        await create_monitor(api, url="https://example.com", check_frequency=INTERVAL)
    await checked_per_second(app, clock, INTERVAL + 1)  # settled on their schedule
    clock.advance(600)  # nothing ran for ten minutes
    claimed = await checked_per_second(app, clock, INTERVAL + 1)
    assert claimed[0] == OFF_SCHEDULE_PER_CLAIM
    assert sum(claimed) == BURST + OFF_SCHEDULE_PER_CLAIM and max(claimed[1:]) <= 3
