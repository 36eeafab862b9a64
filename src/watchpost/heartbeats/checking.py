"""Heartbeat deadlines: computing them in SQL, and the sweep that marks overdue heartbeats down.

The check engine calls `sweep_overdue` periodically inside a write transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import ColumnElement, FunctionElement, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

from watchpost.clock import isoformat_ms
from watchpost.db.base import UTCDateTime
from watchpost.heartbeats.models import Heartbeat
from watchpost.history import service as history
from watchpost.incidents.transitions import open_incident_for, start
from watchpost.maintenance_windows import in_maintenance, local_instant, maintenance_end
from watchpost.timezones import zone_of

UP: Final = "up"
DOWN: Final = "down"
MAINTENANCE_RECHECK = timedelta(seconds=60)
"""An overdue heartbeat inside its maintenance window is looked at again this much later."""
NO_UPDATE_SYNC: Final = {"synchronize_session": False}


class _PlusSeconds(FunctionElement[datetime]):
    """`moment + seconds` (an integer SQL expression) as a UTC timestamp, on both backends."""

    type = UTCDateTime()
    name = "plus_seconds"
    inherit_cache = True


@compiles(_PlusSeconds, "postgresql")
def _plus_seconds_postgresql(element: _PlusSeconds, compiler: SQLCompiler, **kw: Any) -> str:
    moment, seconds = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"(CAST({moment} AS TIMESTAMP WITH TIME ZONE) + make_interval(secs => {seconds}))"


@compiles(_PlusSeconds, "sqlite")
def _plus_seconds_sqlite(element: _PlusSeconds, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite stores "YYYY-MM-DD HH:MM:SS.ffffff"; whole seconds are added and the fraction
    # (characters 20 on) carried over, so stored values keep one format and compare as text.
    moment, seconds = (compiler.process(clause, **kw) for clause in element.clauses)
    return (
        f"(strftime('%Y-%m-%d %H:%M:%S', {moment}, '+' || ({seconds}) || ' seconds')"
        f" || substr({moment}, 20))"
    )


def due_after(now: datetime | ColumnElement[datetime]) -> ColumnElement[datetime]:
    """The deadline after a ping at `now` (a time or a bound parameter): now + period + grace
    of the row being updated."""
    moment = now if isinstance(now, ColumnElement) else literal(now, UTCDateTime())
    return _PlusSeconds(moment, Heartbeat.period + Heartbeat.grace)


def deadline_after(heartbeat: Heartbeat, start: datetime) -> datetime:
    """When the heartbeat is due after a ping (or an unpause) at `start`: period + grace
    later; with a server_timezone the period is wall-clock time there, so a daily job stays
    due at the same local time across DST (a local time the clocks skip counts as the
    instant they jump, one they repeat as its first occurrence)."""
    zone = zone_of(heartbeat.server_timezone) if heartbeat.server_timezone else None
    if zone is None:
        return start + timedelta(seconds=heartbeat.period + heartbeat.grace)
    wall = start.astimezone(zone).replace(tzinfo=None) + timedelta(seconds=heartbeat.period)
    return local_instant(wall, zone) + timedelta(seconds=heartbeat.grace)


def _iso(value: datetime | None) -> str:
    return isoformat_ms(value) if value is not None else "never"


def overdue_cause(heartbeat: Heartbeat, *, deadline: datetime, now: datetime) -> str:
    return (
        f"No ping received within period + grace ({heartbeat.period} s + {heartbeat.grace} s): "
        f"last ping {_iso(heartbeat.last_ping_at)}, due by {_iso(deadline)}, "
        f"checked at {_iso(now)}."
    )


async def sweep_overdue(session: AsyncSession, *, now: datetime, limit: int = 500) -> int:
    """Mark up to `limit` overdue heartbeats down, each with one incident; how many went down.

    Run it in a write transaction (the caller commits). Every change is a conditional
    update on the state that was read, so sweepers running at once never both act on one
    heartbeat; on PostgreSQL they also skip rows another transaction holds. An overdue
    heartbeat inside its maintenance window stays up and is looked at again when the window
    ends, so it goes down then unless it pings.
    """
    overdue = (
        await session.scalars(
            select(Heartbeat)
            .where(
                Heartbeat.status == UP,
                Heartbeat.paused.is_(False),
                Heartbeat.next_due_at < now,
            )
            .order_by(Heartbeat.next_due_at, Heartbeat.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    ).all()
    went_down = 0
    for heartbeat in overdue:
        deadline = heartbeat.next_due_at
        assert deadline is not None
        unchanged = update(Heartbeat).where(
            Heartbeat.id == heartbeat.id,
            Heartbeat.status == UP,
            Heartbeat.paused.is_(False),
            Heartbeat.next_due_at == deadline,
        )
        if in_maintenance(heartbeat, now):
            window_end = maintenance_end(heartbeat, now) or now + MAINTENANCE_RECHECK
            await session.execute(
                unchanged.values(next_due_at=window_end),
                execution_options=NO_UPDATE_SYNC,
            )
            session.expire(heartbeat)
            continue
        changed = await session.execute(
            unchanged.values(status=DOWN).returning(Heartbeat.id),
            execution_options=NO_UPDATE_SYNC,
        )
        if changed.first() is None:
            continue  # pinged, paused or swept by someone else since it was read
        went_down += 1
        if await open_incident_for(session, heartbeat_id=heartbeat.id) is None:
            await start(
                session,
                team_id=heartbeat.team_id,
                name=heartbeat.name,
                cause=overdue_cause(heartbeat, deadline=deadline, now=now),
                at=now,
                heartbeat_id=heartbeat.id,
            )
        session.expire(heartbeat)
    return went_down


OBSERVE_EVERY = timedelta(seconds=60)
OBSERVATION_STANDS_FOR = OBSERVE_EVERY * 2.5


async def observe_heartbeats(session: AsyncSession, *, now: datetime) -> int:
    """Record the state of every watched heartbeat in the check history; how many.

    Pings stay one statement: the history learns about heartbeats from this sweep, which
    the engine runs every OBSERVE_EVERY. Each observation stands for OBSERVATION_STANDS_FOR,
    so heartbeat time counts as observed exactly while the checker runs. Downtime on status
    pages comes from incidents, as for every other item; pending and paused heartbeats are
    not observed.
    """
    rows = (
        await session.execute(
            select(
                Heartbeat.id,
                Heartbeat.team_id,
                Heartbeat.status,
                Heartbeat.maintenance_from,
                Heartbeat.maintenance_to,
                Heartbeat.maintenance_timezone,
                Heartbeat.maintenance_days,
            ).where(Heartbeat.status.in_((UP, DOWN)), Heartbeat.paused.is_(False))
        )
    ).all()
    observations = [
        history.Observation(
            team_id=row.team_id,
            subject_type="heartbeat",
            subject_id=row.id,
            at=now,
            state="maintenance" if in_maintenance(row, now) else row.status,
            valid_for_s=OBSERVATION_STANDS_FOR.total_seconds(),
        )
        for row in rows
    ]
    await history.record(session, observations)
    return len(observations)
