"""Chart series for a detail page, from the hourly check rollups: response times (with
down slots) for the response-time chart, time in each state for a heartbeat's history.

One indexed read of at most 30 days of one subject's hourly rollups (≤ 721 rows) serves
every range: 24 h and 7 d by the hour, 30 d by four hours (≤ 181 points each). The raw
results are not used: they are kept for a day at most and a check every few seconds would
make thousands of points.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import add
from typing import Any, Final, Literal, cast

from sqlalchemy import ColumnElement, FunctionElement, Integer, Select, Table, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

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


SlotState = Literal["up", "down", "maintenance", "none"]


@dataclass(frozen=True)
class Slot:
    """One slot of a state timeline: its start and the seconds attributed to each state in
    it (failures: down observations in it). Time nobody observed (paused, not yet pinged,
    the checker stopped) is in none of them."""

    at: datetime
    up_s: float
    down_s: float
    maintenance_s: float
    failures: int

    @property
    def state(self) -> SlotState:
        """The slot's worst state: down if it was seen down at all (as Point.down), else
        maintenance if any of it was, else up if any of it was; "none" when unobserved."""
        if self.down_s > 0 or self.failures > 0:
            return "down"
        if self.maintenance_s > 0:
            return "maintenance"
        return "up" if self.up_s > 0 else "none"


RANGES: Final[dict[str, tuple[timedelta, timedelta]]] = {
    "24h": (timedelta(hours=24), timedelta(hours=1)),
    "7d": (timedelta(days=7), timedelta(hours=1)),
    "30d": (timedelta(days=30), timedelta(hours=4)),
}
"""Range name → (how far back, one point's width)."""
LONGEST: Final = max(span for span, _ in RANGES.values())


class _EpochHours(FunctionElement[int]):
    """Whole hours from the Unix epoch to a UTC timestamp column, on both backends: the
    rows arrive as numbers, without a datetime to parse each."""

    type = Integer()
    name = "epoch_hours"
    inherit_cache = True


@compiles(_EpochHours, "postgresql")
def _epoch_hours_postgresql(element: _EpochHours, compiler: SQLCompiler, **kw: Any) -> str:
    (moment,) = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"CAST(floor(extract(epoch FROM {moment}) / 3600) AS BIGINT)"


@compiles(_EpochHours, "sqlite")
def _epoch_hours_sqlite(element: _EpochHours, compiler: SQLCompiler, **kw: Any) -> str:
    (moment,) = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"(CAST(strftime('%s', {moment}) AS INTEGER) / 3600)"  # stored as naive UTC text


_rollups = cast(Table, CheckRollup.__table__)


def _hourly(*columns: ColumnElement[Any]) -> Select[Any]:
    """The subject's hourly rollups in a range, oldest first: hours since the epoch, then
    `columns`. The primary key's range: (subject_type, subject_id, granularity,
    period_start)."""
    return (
        select(_EpochHours(_rollups.c.period_start), *columns)
        .where(
            _rollups.c.subject_type == bindparam("subject_type"),
            _rollups.c.subject_id == bindparam("subject_id"),
            _rollups.c.granularity == "hour",
            _rollups.c.period_start >= bindparam("low"),
            _rollups.c.period_start < bindparam("high"),
        )
        .order_by(_rollups.c.period_start)
    )


_RESPONSES: Final = _hourly(
    _rollups.c.down_s + _rollups.c.failures, _rollups.c.latency_sum, _rollups.c.latency_count
)
"""(hours, down seconds + failures, latency sum, latency count): the response-time chart's
columns only (a monitor's page is read often)."""
_STATES: Final = _hourly(
    _rollups.c.up_s, _rollups.c.down_s, _rollups.c.maintenance_s, _rollups.c.failures
)
"""(hours, up seconds, down seconds, maintenance seconds, failures): the state timeline's."""
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)

_Hour = tuple[Any, ...]
"""A row of _RESPONSES or _STATES."""


def _hours(at: datetime) -> int:
    """Whole hours from the epoch to `at` (the UTC hour holding it)."""
    return int((at - _EPOCH).total_seconds() // 3600)


def _sums(
    hours: Sequence[_Hour], *, now: datetime, span: timedelta, width: timedelta
) -> tuple[range, dict[int, _Hour]]:
    """The starts of every slot of `width` (whole hours from the epoch, UTC-aligned) from
    `now - span` to now, oldest first, and the rollups of each slot that has any, their
    columns summed (the first too: not an hour then); `hours` oldest first. Integer
    hours, not datetimes, and an hour's own row for an hour's slot: 720 rows a page,
    three times."""
    size = int(width.total_seconds() // 3600)
    low = _hours(now - span)
    within = hours[bisect_left(hours, (low,)) :]
    sums: dict[int, _Hour]
    if size == 1:
        sums = {row[0]: row for row in within}
    else:
        sums = {}
        for row in within:
            slot = row[0] - row[0] % size
            found = sums.get(slot)
            sums[slot] = row if found is None else tuple(map(add, found, row))
    return range(low - low % size, _hours(now - timedelta(microseconds=1)) + 1, size), sums


def points(
    hours: Sequence[_Hour], *, now: datetime, span: timedelta, width: timedelta
) -> list[Point]:
    """The response-time chart's slots (see _sums) from rows of _RESPONSES. A slot
    without rollups has no response time and is not down."""
    starts, sums = _sums(hours, now=now, span=span, width=width)
    found: list[Point] = []
    for slot_hour in starts:
        _, down, total, timed = sums.get(slot_hour, (0, 0.0, 0.0, 0))
        at = _EPOCH + timedelta(hours=slot_hour)
        found.append(Point(at, total / timed if timed else None, down > 0))
    return found


def slots(
    hours: Sequence[_Hour], *, now: datetime, span: timedelta, width: timedelta
) -> list[Slot]:
    """The state timeline's slots (see _sums) from rows of _STATES."""
    starts, sums = _sums(hours, now=now, span=span, width=width)
    found: list[Slot] = []
    for slot_hour in starts:
        _, up_s, down_s, maintenance_s, failures = sums.get(slot_hour, (0, 0.0, 0.0, 0.0, 0))
        found.append(
            Slot(_EPOCH + timedelta(hours=slot_hour), up_s, down_s, maintenance_s, failures)
        )
    return found


async def _read(
    session: AsyncSession,
    statement: Select[Any],
    *,
    subject_type: str,
    subject_id: int,
    now: datetime,
) -> list[_Hour]:
    """The subject's hourly rollups of the longest range, oldest first (one query)."""
    params = {
        "subject_type": subject_type,
        "subject_id": subject_id,
        "low": bucket_start(now - LONGEST, "hour"),
        "high": now,
    }
    connection = await session.connection()
    return [tuple(row) for row in await connection.execute(statement, params)]


async def response_series(
    session: AsyncSession, *, subject_type: str, subject_id: int, now: datetime
) -> dict[str, list[Point]]:
    """The subject's points for each of RANGES (one query)."""
    now = now.astimezone(UTC)
    rows = await _read(
        session, _RESPONSES, subject_type=subject_type, subject_id=subject_id, now=now
    )
    return {
        name: points(rows, now=now, span=span, width=width)
        for name, (span, width) in RANGES.items()
    }


async def state_series(
    session: AsyncSession, *, subject_type: str, subject_id: int, now: datetime
) -> dict[str, list[Slot]]:
    """The subject's state slots for each of RANGES (one query: the same read of other
    columns)."""
    now = now.astimezone(UTC)
    rows = await _read(session, _STATES, subject_type=subject_type, subject_id=subject_id, now=now)
    return {
        name: slots(rows, now=now, span=span, width=width) for name, (span, width) in RANGES.items()
    }
