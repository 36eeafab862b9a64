"""Periodic work the engine loop runs each tick, each in its own write transaction.

A sweep finds rows that became overdue by the passing of time alone (a heartbeat that did
not ping) and acts on them; it returns how many it handled. At the heartbeat-pings merge,
add `heartbeats.checking.sweep_overdue` to SWEEPS.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession


class Sweep(Protocol):
    async def __call__(self, session: AsyncSession, *, now: datetime) -> int: ...


SWEEPS: list[Sweep] = []
