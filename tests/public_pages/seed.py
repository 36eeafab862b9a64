"""History for the public page tests: observations (through the history service, as the
engine records them) and incidents (opened as the engine does, closed at a given time)."""

from __future__ import annotations

from datetime import datetime, timedelta

from fastapi import FastAPI

from tests.factories.history import obs, write
from watchpost.incidents import transitions


async def observe(
    app: FastAPI,
    team_id: int,
    monitor_id: int,
    *,
    start: datetime,
    end: datetime,
    every: timedelta = timedelta(hours=1),
    latency_ms: float | None = None,
) -> None:
    """Up observations from start to end (each standing until the next)."""
    observations = []
    when = start
    while when <= end:
        observations.append(
            obs(
                team_id,
                when,
                subject_id=monitor_id,
                valid_for_s=every.total_seconds(),
                latency_ms=latency_ms,
            )
        )
        when += every
    await write(app, observations)


async def incident(
    app: FastAPI, team_id: int, monitor_id: int, start: datetime, end: datetime | None
) -> None:
    """An incident of the monitor over [start, end) (open when end is None)."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        found = await transitions.start(
            session,
            team_id=team_id,
            name="Website",
            cause="Status 500",
            at=start,
            monitor_id=monitor_id,
        )
        if end is not None:
            found.resolved_at = end
