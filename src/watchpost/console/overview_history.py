"""What the overview shows of each row's history: its last response time, 24 hourly buckets
for the sparkline and its 30-day availability.

Read for the rows of the page shown only, from the rollups and last observations
(history/models.py): one query each for the whole page, one IN list per kind. The ids are
the team's own (the page was read by team), so these look rows up by their primary key
alone: a team_id term could lead the planner to the team's index, every row of the team.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from watchpost.console.overview_query import ids_in, parameters, rows_query
from watchpost.console.overview_rules import SUBJECT_TYPES
from watchpost.db.base import UTCDateTime
from watchpost.history.models import CheckRollup, LastObservation
from watchpost.history.periods import bucket_start

SPARK_HOURS: Final = 24
AVAILABILITY_DAYS: Final = 30
_KIND_OF: Final = {subject: kind for kind, subject in SUBJECT_TYPES.items()}


@dataclass(frozen=True)
class Row:
    """One line of the overview."""

    kind: str
    """"monitor", "heartbeat" or "target"."""
    id: int
    name: str
    url: str | None
    """A monitor's URL, a target's address; None for heartbeats."""
    state: str
    since: datetime | None
    response_ms: float | None
    """The latest check's response time."""
    spark: tuple[float | None, ...]
    """Mean response time of each of the last 24 UTC hours (the current one last); None
    where no check measured one."""
    spark_down: tuple[bool, ...]
    """Whether any check of that hour failed."""
    availability_30d: float | None
    """Percent of the observed time outside maintenance that was up, over the last 30 UTC
    days (today so far included); None when nothing was observed."""


Key = tuple[str, int]


@dataclass
class Details:
    """What the page's rows need beyond their own table."""

    hours: tuple[datetime, ...]
    rows: dict[Key, tuple[str, str | None, str, datetime | None]] = field(default_factory=dict)
    """Name, URL, state and since."""
    latency: dict[Key, float | None] = field(default_factory=dict)
    spark: dict[Key, dict[datetime, tuple[float | None, bool]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    availability: dict[Key, float | None] = field(default_factory=dict)

    def row(self, kind: str, row_id: int) -> Row:
        key = (kind, row_id)
        name, url, state, since = self.rows[key]
        hours = self.spark.get(key, {})
        spark = [hours.get(hour, (None, False)) for hour in self.hours]
        return Row(
            kind=kind,
            id=row_id,
            name=name,
            url=url,
            state=state,
            since=since,
            response_ms=self.latency.get(key),
            spark=tuple(mean for mean, _ in spark),
            spark_down=tuple(down for _, down in spark),
            availability_30d=self.availability.get(key),
        )


_r = CheckRollup


@functools.cache
def _latency_query(kinds: tuple[str, ...]) -> Select[Any]:
    o = LastObservation
    return select(o.subject_type, o.subject_id, o.latency_ms).where(ids_in(o, kinds))


@functools.cache
def _hours_query(kinds: tuple[str, ...]) -> Select[Any]:
    """Hourly buckets within [first_hour, now]."""
    return select(
        _r.subject_type,
        _r.subject_id,
        _r.period_start,
        _r.failures,
        _r.latency_sum,
        _r.latency_count,
    ).where(
        ids_in(_r, kinds),
        _r.granularity == "hour",
        _r.period_start >= _bound("first_hour", UTCDateTime()),
        _r.period_start <= _bound("now", UTCDateTime()),
    )


@functools.cache
def _days_query(kinds: tuple[str, ...]) -> Select[Any]:
    """Up and down seconds of the daily buckets within [first_day, now]."""
    return (
        select(_r.subject_type, _r.subject_id, func.sum(_r.up_s), func.sum(_r.down_s))
        .where(
            ids_in(_r, kinds),
            _r.granularity == "day",
            _r.period_start >= _bound("first_day", UTCDateTime()),
            _r.period_start <= _bound("now", UTCDateTime()),
        )
        .group_by(_r.subject_type, _r.subject_id)
    )


def _bound(name: str, type_: Any = None) -> Any:
    return bindparam(name, type_=type_)


async def read_details(
    connection: AsyncConnection,
    *,
    team_id: int,
    shown: Sequence[Key],
    now: datetime,
) -> Details:
    """Name, URL, state, since, last response time, sparkline buckets and availability of
    the rows named."""
    current = bucket_start(now, "hour")
    first_hour = current - timedelta(hours=SPARK_HOURS - 1)
    found = Details(hours=tuple(first_hour + timedelta(hours=n) for n in range(SPARK_HOURS)))
    by_kind: dict[str, list[int]] = defaultdict(list)
    for kind, row_id in shown:
        by_kind[kind].append(row_id)
    kinds = tuple(by_kind)
    if not kinds:
        return found
    values = parameters(team_id=team_id, now=now) | {
        "first_hour": first_hour,
        "first_day": bucket_start(now, "day") - timedelta(days=AVAILABILITY_DAYS - 1),
    }
    values |= {f"ids_{kind}": ids for kind, ids in by_kind.items()}
    for kind, ids in by_kind.items():
        for row in await connection.execute(rows_query(kind), values | {"ids": ids}):
            found.rows[(kind, row.id)] = (row.name, row.url, row.state, row.since)
    for subject_type, subject_id, latency in await connection.execute(
        _latency_query(kinds), values
    ):
        found.latency[(_KIND_OF[subject_type], subject_id)] = latency
    for subject_type, subject_id, start, failures, total, count in await connection.execute(
        _hours_query(kinds), values
    ):
        mean = total / count if count else None
        found.spark[(_KIND_OF[subject_type], subject_id)][start] = (mean, failures > 0)
    for subject_type, subject_id, up_s, down_s in await connection.execute(
        _days_query(kinds), values
    ):
        counted = float(up_s or 0) + float(down_s or 0)
        found.availability[(_KIND_OF[subject_type], subject_id)] = (
            round(100 * float(up_s or 0) / counted, 4) if counted > 0 else None
        )
    return found
