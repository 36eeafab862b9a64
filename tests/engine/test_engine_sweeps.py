"""Periodic sweeps: heartbeats every tick, history pruning at most every few minutes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.engine.sweeps import PRUNE_EVERY, Every, default_sweeps
from watchpost.heartbeats.checking import observe_heartbeats, sweep_overdue


class Counting:
    def __init__(self) -> None:
        self.calls: list[datetime] = []

    async def __call__(self, session: AsyncSession, *, now: datetime) -> int:
        self.calls.append(now)
        return 1


async def test_every_runs_at_most_once_per_interval() -> None:
    inner = Counting()
    throttled = Every(timedelta(minutes=5), inner)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    # The counting sweep never touches its session.
    session: AsyncSession = None  # type: ignore[assignment]
    results = [
        await throttled(session, now=start + timedelta(seconds=offset))
        for offset in (0, 1, 120, 299, 300, 301, 600)
    ]
    assert results == [1, 0, 0, 0, 1, 0, 1]
    # A clock that moves back (a new test's FrozenClock) starts the interval again.
    assert await throttled(session, now=start) == 1


def test_each_engine_gets_its_own_sweeps() -> None:
    first, second = default_sweeps(), default_sweeps()
    assert first[0] is sweep_overdue
    assert isinstance(first[1], Every) and first[1].sweep is observe_heartbeats
    assert isinstance(first[2], Every) and first[2].interval == PRUNE_EVERY
    assert first[1] is not second[1]
