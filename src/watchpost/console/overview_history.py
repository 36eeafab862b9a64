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

from sqlalchemy import Select, and_, bindparam, case, func, select
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
        )


_NO_SPARK: Final = ((None,) * SPARK_HOURS, (False,) * SPARK_HOURS)
_r = CheckRollup


def _hour(n: int) -> Any:
    return bindparam(f"hour_{n}", type_=UTCDateTime())


@functools.cache
def _hours_query(kinds: tuple[str, ...]) -> Select[Any]:
    """Each row's 24 hours as columns (bound: hour_0 … hour_23): the mean response time of
    each, then whether each had a failure. One result row a subject: the page's rows are
    read as 50 rows, not 1,200."""
    in_hour = [_r.period_start == _hour(n) for n in range(SPARK_HOURS)]
    means = [
        func.max(case((and_(hour, _r.latency_count > 0), _r.latency_sum / _r.latency_count)))
        for hour in in_hour
    ]
    failed = [func.max(case((and_(hour, _r.failures > 0), 1), else_=0)) for hour in in_hour]
    return (
        select(_r.subject_type, _r.subject_id, *means, *failed)
        .where(
            ids_in(_r, kinds),
            _r.granularity == "hour",
            _r.period_start >= _hour(0),
            _r.period_start <= _hour(SPARK_HOURS - 1),
        )
        .group_by(_r.subject_type, _r.subject_id)
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
    values |= {f"hour_{n}": first_hour + timedelta(hours=n) for n in range(SPARK_HOURS)}
    values |= {f"ids_{kind}": ids for kind, ids in by_kind.items()}
    for kind, ids in by_kind.items():
        for row in await connection.execute(rows_query(kind), values | {"ids": ids}):
            found.rows[(kind, row.id)] = row
    for subject_type, subject_id, *hours in await connection.execute(_hours_query(kinds), values):
        found.spark[(_KIND_OF[subject_type], subject_id)] = (
            tuple(hours[:SPARK_HOURS]),
            tuple(bool(failed) for failed in hours[SPARK_HOURS:]),
        )
    for subject_type, subject_id, up_s, down_s in await connection.execute(
        _days_query(kinds), values
    ):
        counted = float(up_s or 0) + float(down_s or 0)
        found.availability[(_KIND_OF[subject_type], subject_id)] = (
            round(100 * float(up_s or 0) / counted, 4) if counted > 0 else None
        )
    return found
