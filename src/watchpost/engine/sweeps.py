"""Periodic work the engine loop runs each tick, each in its own write transaction.

A sweep finds rows that became overdue by the passing of time alone (a heartbeat that did
not ping) and acts on them; it returns how many it handled.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.heartbeats.checking import sweep_overdue


class Sweep(Protocol):
    async def __call__(self, session: AsyncSession, *, now: datetime) -> int: ...


SWEEPS: list[Sweep] = [sweep_overdue]
