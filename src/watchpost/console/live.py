"""Live updates: `/console/events` is a stream of server-sent events that says `change`
whenever the team's state moved (a check changed a monitor's state, an incident opened or
changed, something was created, edited or deleted); console.js then fetches the page again.

The stream reads a small fingerprint of the team every POLL seconds (indexed aggregates, no
rows), and ends after MAX_AGE (the browser's EventSource reconnects on its own), so a
forgotten tab never holds a connection for ever.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Final

from fastapi import Request
from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors.models import CollectorTarget
from watchpost.heartbeats.models import Heartbeat
from watchpost.incidents.models import Incident
from watchpost.monitors.models import Monitor

POLL: Final = 2.0
MAX_AGE: Final = 300.0
STATES: Final = ("up", "down", "paused", "maintenance", "validating")


async def fingerprint(db: AsyncSession, team_id: int) -> tuple[Any, ...]:
    """What changes when anything the console shows of the team changes."""
    parts: list[Any] = []
    for model in (Monitor, Heartbeat, CollectorTarget):
        columns = model.__table__.c
        row = (
            await db.execute(
                select(
                    func.count(),
                    func.max(columns.updated_at),
                    # Which rows are in which state, not only how many: one going down as
                    # another comes up changes these sums.
                    *(
                        func.sum(case((columns.status == state, columns.id), else_=0))
                        for state in STATES
                    ),
                ).where(columns.team_id == team_id)
            )
        ).one()
        parts.append(tuple(row))
    incidents = Incident.__table__.c
    row = (
        await db.execute(
            select(func.count(), func.max(incidents.change_stamp)).where(
                incidents.team_id == team_id
            )
        )
    ).one()
    parts.append(tuple(row))
    return tuple(parts)


async def events(request: Request, team_id: int) -> AsyncIterator[bytes]:
    ctx = request.app.state.ctx
    seen: tuple[Any, ...] | None = None
    waited = 0.0
    yield b"retry: 3000\n\n"
    while waited < MAX_AGE:
        if await request.is_disconnected():
            return
        async with ctx.db.read_sessions() as db:
            now = await fingerprint(db, team_id)
        if seen is not None and now != seen:
            yield b"event: change\ndata: {}\n\n"
        else:
            yield b": still here\n\n"
        seen = now
        await asyncio.sleep(POLL)
        waited += POLL
