"""Response-time series for a detail page's charts, from the hourly check rollups.

One indexed read of at most 30 days of one subject's hourly rollups (≤ 721 rows) serves
every range: 24 h and 7 d by the hour, 30 d by four hours (≤ 181 points each). The raw
results are not used: they are kept for a day at most and a check every few seconds would
make thousands of points.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.history.models import CheckRollup
from watchpost.history.periods import bucket_start


@dataclass(frozen=True)
class Point:
    """One slot of a chart: its start, the average response time of the checks in it
    (None: no timed check), and whether the subject was seen down in it (a failed check,
    or time attributed to one)."""

    at: datetime
    ms: float | None
    down: bool


RANGES: Final[dict[str, tuple[timedelta, timedelta]]] = {
    "24h": (timedelta(hours=24), timedelta(hours=1)),
    "7d": (timedelta(days=7), timedelta(hours=1)),
    "30d": (timedelta(days=30), timedelta(hours=4)),
}
"""Range name → (how far back, one point's width)."""
LONGEST: Final = max(span for span, _ in RANGES.values())

_HOURLY: Final = (
    select(
        CheckRollup.period_start,
        CheckRollup.down_s,
        CheckRollup.failures,
        CheckRollup.latency_sum,
        CheckRollup.latency_count,
    )
    .where(
        CheckRollup.subject_type == bindparam("subject_type"),
        CheckRollup.subject_id == bindparam("subject_id"),
        CheckRollup.granularity == "hour",
        CheckRollup.period_start >= bindparam("low"),
        CheckRollup.period_start < bindparam("high"),
    )
    .order_by(CheckRollup.period_start)
)
"""The primary key's range: (subject_type, subject_id, granularity, period_start)."""

_Hour = tuple[datetime, float, int, float, int]


def _slot(at: datetime, width: timedelta) -> datetime:
    """The start of the UTC slot of `width` (a whole number of hours) holding `at`."""
    hour = bucket_start(at, "hour")
    hours = int(width.total_seconds() // 3600)
    return hour.replace(hour=hour.hour - hour.hour % hours)


def points(
    hours: Iterable[_Hour], *, now: datetime, span: timedelta, width: timedelta
) -> list[Point]:
    """Every slot of `width` from `now - span` to now, oldest first; a slot without rollups
    has no response time and is not down."""
    sums: dict[datetime, list[float]] = {}
    low = now - span
    for start, down_s, failures, latency_sum, latency_count in hours:
        if start + timedelta(hours=1) <= low:
            continue
        slot = sums.setdefault(_slot(start, width), [0.0, 0.0, 0.0])
        slot[0] += latency_sum
        slot[1] += latency_count
        slot[2] += down_s + failures
    found: list[Point] = []
    cursor = _slot(low, width)
    while cursor < now:
        total, timed, down = sums.get(cursor, (0.0, 0.0, 0.0))
        found.append(Point(cursor, total / timed if timed else None, down > 0))
        cursor += width
    return found


async def response_series(
    session: AsyncSession, *, subject_type: str, subject_id: int, now: datetime
) -> dict[str, list[Point]]:
    """The subject's points for each of RANGES (one query)."""
    now = now.astimezone(UTC)
    params = {
        "subject_type": subject_type,
        "subject_id": subject_id,
        "low": bucket_start(now - LONGEST, "hour"),
        "high": now,
    }
    rows: list[_Hour] = [tuple(row) for row in await session.execute(_HOURLY, params)]
    return {
        name: points(rows, now=now, span=span, width=width)
        for name, (span, width) in RANGES.items()
    }
