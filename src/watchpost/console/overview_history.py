"""What the overview shows of each row's history: its last response time, 24 hourly buckets
for the sparkline and its 30-day availability.

Read for the rows of the page shown only, from the rollups and last observations
(history/models.py): one query each for the whole page, one IN list per kind (and
the last response time with the rows' own columns). The ids are
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
from watchpost.history.models import CheckRollup
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
    degraded: bool = False
    """Up, though some of its locations fail (a monitor's `degraded`)."""


Key = tuple[str, int]


@dataclass
class Details:
    """What the page's rows need beyond their kind and id."""

    rows: dict[Key, Any] = field(default_factory=dict)
    """Name, URL, state, since and latency (overview_query.rows_query)."""
    spark: dict[Key, tuple[tuple[float | None, ...], tuple[bool, ...]]] = field(
        default_factory=dict
    )
    availability: dict[Key, float | None] = field(default_factory=dict)

    def row(self, kind: str, row_id: int) -> Row:
        key = (kind, row_id)
        found = self.rows[key]
        spark, down = self.spark.get(key, _NO_SPARK)
        return Row(
            kind=kind,
            id=row_id,
            name=found.name,
            url=found.url,
            state=found.state,
            since=found.since,
            response_ms=found.latency,
            spark=spark,
            spark_down=down,
            availability_30d=self.availability.get(key),
            degraded=found.state == "up" and bool(found.degraded),
        )


_NO_SPARK: Final = ((None,) * SPARK_HOURS, (False,) * SPARK_HOURS)
_r = CheckRollup


@functools.cache
def _hours_query(kinds: tuple[str, ...]) -> Select[Any]:
    """Hourly buckets within [first_hour, now] (a row each: a SQL pivot of the 24 hours
    into columns was measured slower on SQLite, its CASE per hour and row)."""
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
        _r.period_start >= bindparam("first_hour", type_=UTCDateTime()),
        _r.period_start <= bindparam("now", type_=UTCDateTime()),
    )


@functools.cache
def _days_query(kinds: tuple[str, ...]) -> Select[Any]:
    """Up and down seconds of the daily buckets within [first_day, now]."""
    return (
        select(_r.subject_type, _r.subject_id, func.sum(_r.up_s), func.sum(_r.down_s))
        .where(
            ids_in(_r, kinds),
            _r.granularity == "day",
            _r.period_start >= bindparam("first_day", type_=UTCDateTime()),
            _r.period_start <= bindparam("now", type_=UTCDateTime()),
        )
        .group_by(_r.subject_type, _r.subject_id)
    )


async def read_details(
    connection: AsyncConnection,
    *,
    team_id: int,
    shown: Sequence[Key],
    now: datetime,
) -> Details:
    """Name, URL, state, since, last response time, sparkline and availability of the
    rows named."""
    found = Details()
    by_kind: dict[str, list[int]] = defaultdict(list)
    for kind, row_id in shown:
        by_kind[kind].append(row_id)
    kinds = tuple(by_kind)
    if not kinds:
        return found
    first_hour = bucket_start(now, "hour") - timedelta(hours=SPARK_HOURS - 1)
    values = parameters(team_id=team_id, now=now)
    values["first_day"] = bucket_start(now, "day") - timedelta(days=AVAILABILITY_DAYS - 1)
    values["first_hour"] = first_hour
    values |= {f"ids_{kind}": ids for kind, ids in by_kind.items()}
    for kind, ids in by_kind.items():
        for row in await connection.execute(rows_query(kind), values | {"ids": ids}):
            found.rows[(kind, row.id)] = row
    places = {first_hour + timedelta(hours=n): n for n in range(SPARK_HOURS)}
    spark: dict[Key, tuple[list[float | None], list[bool]]] = {}
    for subject_type, subject_id, start, failures, total, count in await connection.execute(
        _hours_query(kinds), values
    ):
        place = places.get(start)
        if place is None:
            continue
        key = (_KIND_OF[subject_type], subject_id)
        if key not in spark:
            spark[key] = ([None] * SPARK_HOURS, [False] * SPARK_HOURS)
        spark[key][0][place] = total / count if count else None
        spark[key][1][place] = failures > 0
    found.spark = {key: (tuple(means), tuple(down)) for key, (means, down) in spark.items()}
    for subject_type, subject_id, up_s, down_s in await connection.execute(
        _days_query(kinds), values
    ):
        counted = float(up_s or 0) + float(down_s or 0)
        found.availability[(_KIND_OF[subject_type], subject_id)] = (
            round(100 * float(up_s or 0) / counted, 4) if counted > 0 else None
        )
    return found
