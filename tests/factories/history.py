"""Recording observations and reading rollups straight through the database in tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI
from sqlalchemy import func, select

from watchpost.history.models import CheckResult, CheckRollup
from watchpost.history.service import Observation, State, SubjectType, record


def at(day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, minute, second, tzinfo=UTC)


def obs(
    team_id: int,
    when: datetime,
    state: State = "up",
    *,
    subject_id: int = 1,
    subject_type: SubjectType = "monitor",
    valid_for_s: float = 120,
    latency_ms: float | None = None,
) -> Observation:
    return Observation(
        team_id=team_id,
        subject_type=subject_type,
        subject_id=subject_id,
        at=when,
        state=state,
        valid_for_s=valid_for_s,
        latency_ms=latency_ms,
    )


async def write(app: FastAPI, observations: Sequence[Observation]) -> None:
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await record(session, observations)


async def rollups(
    app: FastAPI, granularity: str, *, subject_id: int = 1, subject_type: str = "monitor"
) -> dict[datetime, CheckRollup]:
    async with app.state.ctx.db.read_sessions() as session:
        rows = await session.scalars(
            select(CheckRollup).where(
                CheckRollup.subject_type == subject_type,
                CheckRollup.subject_id == subject_id,
                CheckRollup.granularity == granularity,
            )
        )
        return {row.period_start: row for row in rows}


def seconds(rows: dict[datetime, CheckRollup]) -> dict[datetime, tuple[float, float, float]]:
    """period start → (up, down, maintenance), leaving out buckets with no time."""
    return {
        start: (row.up_s, row.down_s, row.maintenance_s)
        for start, row in rows.items()
        if row.up_s or row.down_s or row.maintenance_s
    }


async def count(app: FastAPI, model: Any, **where: Any) -> int:
    async with app.state.ctx.db.read_sessions() as session:
        stmt = select(func.count()).select_from(model)
        for name, value in where.items():
            stmt = stmt.where(getattr(model, name) == value)
        return int(await session.scalar(stmt) or 0)


__all__ = ["CheckResult", "CheckRollup", "at", "count", "obs", "rollups", "seconds", "write"]
