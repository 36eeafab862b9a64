"""Reading what was observed: buckets of seconds per state, totals, stats, raw results.

A rollup's bucket of the current hour or day ends at now, so that a partly elapsed bucket
is not spread over time that has not happened yet. Read by day, a day that was only partly
observed comes as its hours instead, so that readers still know which part of it was
observed. The span of a subject's latest observation, while it still stands, is not in
the rollups: `histories` adds it.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final, cast

from sqlalchemy import Row, Select, Table, and_, bindparam, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.history.models import CheckResult, CheckRollup, LastObservation
from watchpost.history.periods import SIZES, Granularity, bucket_ceil, bucket_start, chunks

_rollups = cast(Table, CheckRollup.__table__)


@dataclass(frozen=True)
class Bucket:
    """Seconds observed in each state within [start, end)."""

    start: datetime
    end: datetime
    up_s: float = 0.0
    down_s: float = 0.0
    maintenance_s: float = 0.0

    @property
    def observed_s(self) -> float:
        return self.up_s + self.down_s + self.maintenance_s

    @property
    def partly_observed(self) -> bool:
        return self.observed_s < (self.end - self.start).total_seconds() - 1


@dataclass(frozen=True)
class History:
    """What was observed of one subject from `since` to now."""

    buckets: list[Bucket] = field(default_factory=list)
    """Rollups, then the span of the latest observation that is still standing."""
    state: str | None = None
    """The state now; None when not observed now (never observed, or its last
    observation no longer stands)."""
    last_at: datetime | None = None
    standing: Bucket | None = None
    """The span of the latest observation still standing (also the last of `buckets`)."""


_BUCKET_COLUMNS: Final = (
    _rollups.c.subject_id,
    _rollups.c.period_start,
    _rollups.c.up_s,
    _rollups.c.down_s,
    _rollups.c.maintenance_s,
)


def _buckets(rows: Iterable[Row[Any]], granularity: str, now: datetime) -> list[tuple[int, Bucket]]:
    """(subject id, bucket) of rows of _BUCKET_COLUMNS; the current bucket ends at now."""
    size = SIZES[granularity]
    found: list[tuple[int, Bucket]] = []
    for subject_id, period_start, up_s, down_s, maintenance_s in rows:
        end = min(period_start + size, now) if period_start < now else period_start + size
        found.append((subject_id, Bucket(period_start, end, up_s, down_s, maintenance_s)))
    return found


def _standing(last: Any | None, now: datetime) -> Bucket | None:
    if last is None:
        return None
    end = min(now, last.at + timedelta(seconds=last.valid_for_s))
    if end <= last.at:
        return None
    return Bucket(last.at, end, **{f"{last.state}_s": (end - last.at).total_seconds()})


_ROLLUPS_IN: Final = (
    select(*_BUCKET_COLUMNS)
    .where(
        _rollups.c.subject_type == bindparam("subject_type"),
        _rollups.c.subject_id.in_(bindparam("ids", expanding=True)),
    )
    .where(_rollups.c.granularity == bindparam("granularity"))
    .where(_rollups.c.period_start >= bindparam("low"), _rollups.c.period_start < bindparam("high"))
    .order_by(_rollups.c.subject_id, _rollups.c.period_start)
)
"""Rollups of subjects (bound: ids) starting within [low, high)."""
LASTS_OF: Final = select(
    *(getattr(LastObservation, name) for name in ("subject_id", "at", "state", "valid_for_s"))
).where(
    LastObservation.subject_type == bindparam("subject_type"),
    LastObservation.subject_id.in_(bindparam("ids", expanding=True)),
)
"""The last observations of subjects (bound: subject_type, ids): subject id, when, the state
and how long it holds."""


async def _rollups_within(
    session: AsyncSession,
    subject_type: str,
    ids: Sequence[int],
    granularity: str,
    *,
    now: datetime,
    periods: Sequence[tuple[datetime, datetime]],
) -> list[tuple[int, Bucket]]:
    """(subject id, bucket) for the rollups starting within any of the periods."""
    c = _rollups.c
    rows = await session.execute(
        select(*_BUCKET_COLUMNS)
        .where(
            c.subject_type == subject_type,
            c.subject_id.in_(ids),
            c.granularity == granularity,
            or_(*(and_(c.period_start >= start, c.period_start < end) for start, end in periods)),
        )
        .order_by(c.subject_id, c.period_start)
    )
    return _buckets(rows, granularity, now)


async def histories(
    session: AsyncSession,
    *,
    subject_type: str,
    subject_ids: Sequence[int],
    since: datetime,
    now: datetime,
    granularity: Granularity = "hour",
) -> dict[int, History]:
    """Each subject's buckets overlapping [since, now), its state now and last time seen.
    A subject without a last observation was never observed (`record` writes it with the
    rollups; `forget` deletes both): its rollups are not read."""
    ids = sorted(set(subject_ids))
    buckets: dict[int, list[Bucket]] = defaultdict(list)
    lasts: dict[int, Any] = {}
    window = {"granularity": granularity, "low": bucket_start(since, granularity), "high": now}
    connection = await session.connection()
    for chunk in chunks(ids):
        params: dict[str, Any] = {"subject_type": subject_type, "ids": chunk}
        for last_row in await connection.execute(LASTS_OF, params):
            lasts[last_row.subject_id] = last_row
        params["ids"] = observed = [subject_id for subject_id in chunk if subject_id in lasts]
        if not observed:
            continue
        partial: dict[datetime, set[int]] = defaultdict(set)
        rows = await connection.execute(_ROLLUPS_IN, params | window)
        for subject_id, bucket in _buckets(rows, granularity, now):
            if granularity == "day" and bucket.partly_observed:
                partial[bucket.start].add(subject_id)
            else:
                buckets[subject_id].append(bucket)
        days = sorted(partial)
        for offset in range(0, len(days), 50):
            periods = [(day, day + SIZES["day"]) for day in days[offset : offset + 50]]
            for subject_id, bucket in await _rollups_within(
                session, subject_type, observed, "hour", now=now, periods=periods
            ):
                if subject_id in partial[bucket_start(bucket.start, "day")]:
                    buckets[subject_id].append(bucket)
    return {subject: history_of(buckets[subject], lasts.get(subject), now) for subject in ids}


def history_of(buckets: list[Bucket], last: Any | None, now: datetime) -> History:
    if last is None and not buckets:
        return History()
    standing = _standing(last, now)
    state = None
    if last is not None and last.at <= now < last.at + timedelta(seconds=last.valid_for_s):
        state = last.state
    return History(
        buckets=sorted(buckets, key=lambda b: b.start) + ([standing] if standing else []),
        state=state,
        last_at=last.at if last is not None else None,
        standing=standing,
    )


def _total_spans(start: datetime, end: datetime) -> list[tuple[str, datetime, datetime]]:
    """(granularity, low, high): the whole UTC days within [start, end), and the whole
    hours outside them."""
    first_day, last_day = bucket_ceil(start, "day"), bucket_start(end, "day")
    first_hour, last_hour = bucket_ceil(start, "hour"), bucket_start(end, "hour")
    spans: list[tuple[str, datetime, datetime]] = []
    if first_day < last_day:
        spans += [("day", first_day, last_day), ("hour", first_hour, first_day)]
        spans.append(("hour", last_day, last_hour))
    else:
        spans.append(("hour", first_hour, last_hour))
    return [(granularity, low, high) for granularity, low, high in spans if low < high]


def _cut_hours(start: datetime, end: datetime) -> dict[datetime, float]:
    """The hours that `start` or `end` cut, each with the share of it inside the span."""
    hour_s = SIZES["hour"].total_seconds()
    return {
        hour: (min(hour + SIZES["hour"], end) - max(hour, start)).total_seconds() / hour_s
        for hour in {bucket_start(start, "hour"), bucket_start(end, "hour")}
        if hour < end and (hour < start or hour + SIZES["hour"] > end)
    }


async def observed_totals(
    session: AsyncSession,
    *,
    subject_type: str,
    subject_ids: Sequence[int],
    start: datetime,
    end: datetime,
) -> dict[int, tuple[float, float]]:
    """Each subject's (observed, maintenance) seconds within [start, end) from its rollups.

    Summed by the database: the whole UTC days inside the span from daily rollups, the whole
    hours outside them from hourly ones, and an hour cut by `start` or `end` in proportion
    (as readers spread a bucket evenly). The standing span of the latest observation is
    not in the rollups and not counted. `end` must not be later than the start of the
    current hour (whose rollup is still growing).
    """
    c = _rollups.c
    observed = c.up_s + c.down_s + c.maintenance_s
    totals: dict[int, tuple[float, float]] = defaultdict(lambda: (0.0, 0.0))

    def add(rows: Iterable[Row[Any]], share: float = 1.0) -> None:
        for subject_id, seen, maintenance in rows:
            before = totals[subject_id]
            totals[subject_id] = (
                before[0] + float(seen or 0) * share,
                before[1] + float(maintenance or 0) * share,
            )

    ids = sorted(set(subject_ids))
    for chunk in chunks(ids):
        base = (c.subject_type == subject_type, c.subject_id.in_(chunk))
        for granularity, low, high in _total_spans(start, end):
            # one index range each (an OR would scan)
            add(
                await session.execute(
                    select(c.subject_id, func.sum(observed), func.sum(c.maintenance_s))
                    .where(
                        *base,
                        c.granularity == granularity,
                        c.period_start >= low,
                        c.period_start < high,
                    )
                    .group_by(c.subject_id)
                )
            )
        for hour, share in _cut_hours(start, end).items():
            add(
                await session.execute(
                    select(c.subject_id, observed, c.maintenance_s).where(
                        *base, c.granularity == "hour", c.period_start == hour
                    )
                ),
                share,
            )
    return {subject_id: totals[subject_id] for subject_id in ids}


async def recent_results(
    session: AsyncSession, *, subject_type: str, subject_id: int, limit: int = 100
) -> list[CheckResult]:
    """The subject's newest raw results, newest first."""
    rows = await session.scalars(
        select(CheckResult)
        .where(CheckResult.subject_type == subject_type, CheckResult.subject_id == subject_id)
        .order_by(CheckResult.at.desc(), CheckResult.id.desc())
        .limit(limit)
    )
    return list(rows)


@dataclass(frozen=True)
class Stats:
    """Checks and response times of one rollup bucket."""

    start: datetime
    checks: int
    failures: int
    latency_avg_ms: float | None
    latency_min_ms: float | None
    latency_max_ms: float | None


async def stats(
    session: AsyncSession,
    *,
    subject_type: str,
    subject_id: int,
    since: datetime,
    now: datetime,
    granularity: Granularity = "hour",
) -> list[Stats]:
    """Checks, failures and response times per bucket, oldest first (response_times widget)."""
    rows = await session.scalars(
        select(CheckRollup)
        .where(
            CheckRollup.subject_type == subject_type,
            CheckRollup.subject_id == subject_id,
            CheckRollup.granularity == granularity,
            CheckRollup.period_start >= bucket_start(since, granularity),
            CheckRollup.period_start < now,
            CheckRollup.checks > 0,
        )
        .order_by(CheckRollup.period_start)
    )
    return [
        Stats(
            row.period_start,
            row.checks,
            row.failures,
            row.latency_sum / row.latency_count if row.latency_count else None,
            row.latency_min,
            row.latency_max,
        )
        for row in rows
    ]


Span = tuple[int, datetime, datetime]
"""(subject id, start, end)."""
_SPAN_COUNTS: Final = (1, 8, 32, 100)
"""Spans per query: a statement is built once per count, shorter lists are padded by
repeating their last span (an OR returns each row once)."""


@functools.cache
def _in_spans(count: int) -> Select[Any]:
    """Rollups of a subject type and granularity starting within any of `count` spans: one
    index range per span, so only those rows are read."""
    c = _rollups.c
    terms = [
        and_(
            c.subject_type == bindparam("subject_type"),
            c.granularity == bindparam("granularity"),
            c.subject_id == bindparam(f"id{n}"),
            c.period_start >= bindparam(f"low{n}"),
            c.period_start < bindparam(f"high{n}"),
        )
        for n in range(count)
    ]
    return select(*_BUCKET_COLUMNS).where(or_(*terms))


async def _rollups_in_spans(
    session: AsyncSession, subject_type: str, granularity: str, spans: Sequence[Span], now: datetime
) -> list[tuple[int, Bucket]]:
    """(subject id, bucket) for each rollup starting within one of its subject's spans."""
    found: list[tuple[int, Bucket]] = []
    most = _SPAN_COUNTS[-1]
    for offset in range(0, len(spans), most):
        chunk = list(spans[offset : offset + most])
        count = next(n for n in _SPAN_COUNTS if n >= len(chunk))
        chunk += [chunk[-1]] * (count - len(chunk))
        params: dict[str, Any] = {"subject_type": subject_type, "granularity": granularity}
        for n, (subject_id, low, high) in enumerate(chunk):
            params |= {f"id{n}": subject_id, f"low{n}": low, f"high{n}": high}
        found += _buckets(await session.execute(_in_spans(count), params), granularity, now)
    return found


async def buckets_during(
    session: AsyncSession,
    *,
    subject_type: str,
    spans: Sequence[Span],
    now: datetime,
    granularity: Granularity = "hour",
) -> dict[int, list[Bucket]]:
    """Each subject's rollups overlapping its spans, as `histories` gives them (a partly
    observed day as its hours), without the standing span; oldest first."""
    wanted = sorted(
        {(sid, bucket_start(low, granularity), min(high, now)) for sid, low, high in spans}
    )
    wanted = [(sid, low, high) for sid, low, high in wanted if low < high]
    found: dict[int, list[Bucket]] = defaultdict(list)
    partial: set[tuple[int, datetime]] = set()
    for subject_id, bucket in await _rollups_in_spans(
        session, subject_type, granularity, wanted, now
    ):
        if granularity == "day" and bucket.partly_observed:
            partial.add((subject_id, bucket.start))
        else:
            found[subject_id].append(bucket)
    days = [(sid, day, day + SIZES["day"]) for sid, day in sorted(partial)]
    for subject_id, bucket in await _rollups_in_spans(session, subject_type, "hour", days, now):
        found[subject_id].append(bucket)
    return {sid: sorted(buckets, key=lambda b: b.start) for sid, buckets in found.items()}
