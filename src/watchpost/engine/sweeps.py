"""Periodic work the engine loop runs each tick, each in its own write transaction.

A sweep finds rows that became overdue by the passing of time alone (a heartbeat that did
not ping) and acts on them; it returns how many it handled.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors.metrics import prune_samples
from watchpost.heartbeats.checking import OBSERVE_EVERY, observe_heartbeats, sweep_overdue
from watchpost.history.service import prune
from watchpost.locations import offline

PRUNE_EVERY = timedelta(minutes=5)


class Sweep(Protocol):
    async def __call__(self, session: AsyncSession, *, now: datetime) -> int: ...


class Every:
    """A sweep that runs at most once per `interval` (the first call always runs)."""

    def __init__(self, interval: timedelta, sweep: Sweep) -> None:
        self.interval = interval
        self.sweep = sweep
        self._last: datetime | None = None
        self.__qualname__ = f"every {interval} {getattr(sweep, '__qualname__', sweep)}"

    def due(self, now: datetime) -> bool:
        """Whether a call at `now` would run the sweep (the engine opens no transaction else)."""
        return self._last is None or not self._last <= now < self._last + self.interval

    async def __call__(self, session: AsyncSession, *, now: datetime) -> int:
        if not self.due(now):
            return 0
        self._last = now
        return await self.sweep(session, now=now)


def due(sweep: Sweep, now: datetime) -> bool:
    """Whether `sweep` has work to try at `now`: a throttled one only once per interval."""
    return not isinstance(sweep, Every) or sweep.due(now)


def default_sweeps() -> list[Sweep]:
    """A fresh set per engine: overdue heartbeats every tick; heartbeat observations for the
    check history every minute; silent probe locations every few seconds; pruning of
    history and metric samples every few minutes."""
    return [
        sweep_overdue,
        Every(OBSERVE_EVERY, observe_heartbeats),
        Every(PRUNE_EVERY, prune),
        Every(PRUNE_EVERY, prune_samples),
        Every(offline.SWEEP_EVERY, offline.sweep),
    ]
