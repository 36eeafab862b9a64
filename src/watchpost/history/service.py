"""Recording observations, pruning old rows, and reading what was observed. No HTTP.

How time is attributed:

- The span from a subject's observation to its next one belongs to the earlier
  observation's state, but only up to `valid_for_s` after it: time beyond that was not
  observed (the checker was stopped, or the item paused) and is never counted as up.
- Spans are split at UTC hour and day boundaries into hourly and daily rollups. Readers in
  other time zones build their local days from hourly buckets.
- checks, failures (down observations) and latency belong to the bucket of the
  observation's own time.
- An observation older than the subject's latest one (a late result) is kept as a raw
  result and counted in checks/latency, but attributes no span: time already attributed
  is never rewritten.
- A subject's observations should be recorded by one writer at a time (the engine's
  lease); on PostgreSQL the last-observation rows are locked while a batch is recorded.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal, cast, get_args

from sqlalchemy import (
    ColumnElement,
    Select,
    Table,
    TextClause,
    and_,
    bindparam,
    case,
    delete,
    func,
    or_,
    select,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.history.models import CheckResult, CheckRollup, LastObservation

SubjectType = Literal["monitor", "heartbeat", "collector_target"]
State = Literal["up", "down", "maintenance"]
Granularity = Literal["hour", "day"]

SUBJECT_TYPES: Final[tuple[str, ...]] = get_args(SubjectType)
STATES: Final[tuple[str, ...]] = get_args(State)
SIZES: Final[dict[str, timedelta]] = {"hour": timedelta(hours=1), "day": timedelta(days=1)}

RAW_RETENTION: Final = timedelta(hours=24)
RAW_MAX_PER_SUBJECT: Final = 3000
"""24 h of a 30-second check; also bounds subjects observed far more often."""
HOURLY_RETENTION: Final = timedelta(days=400)
"""Covers the longest status page history (365 days) in any time zone."""
DAILY_RETENTION: Final = timedelta(days=800)

_CHUNK: Final = 500
"""Ids per IN (...) list, well under SQLite's bound-parameter limit."""


@dataclass(frozen=True)
class Observation:
    """One result of checking a subject: its state at `at`, standing for valid_for_s."""

    team_id: int
    subject_type: SubjectType
    subject_id: int
    at: datetime
    state: State
    valid_for_s: float
    """How long the state stands if no other observation follows (e.g. 2 x the interval)."""
    latency_ms: float | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ValueError("Observation.at must be timezone-aware")
        if self.subject_type not in SUBJECT_TYPES:
            raise ValueError(f"unknown subject_type {self.subject_type!r}")
        if self.state not in STATES:
            raise ValueError(f"unknown state {self.state!r}")
        if self.valid_for_s < 0:
            raise ValueError("valid_for_s must not be negative")

    @property
    def key(self) -> tuple[str, int]:
        return self.subject_type, self.subject_id


@dataclass
class _Totals:
    team_id: int
    up_s: float = 0.0
    down_s: float = 0.0
    maintenance_s: float = 0.0
    checks: int = 0
    failures: int = 0
    latency_sum: float = 0.0
    latency_count: int = 0
    latency_min: float | None = None
    latency_max: float | None = None

    def add_time(self, state: str, seconds: float) -> None:
        if state == "up":
            self.up_s += seconds
        elif state == "down":
            self.down_s += seconds
        else:
            self.maintenance_s += seconds

    def add_check(self, observation: Observation) -> None:
        self.checks += 1
        self.failures += observation.state == "down"
        latency = observation.latency_ms
        if latency is not None:
            self.latency_sum += latency
            self.latency_count += 1
            self.latency_min = (
                latency if self.latency_min is None else min(self.latency_min, latency)
            )
            self.latency_max = (
                latency if self.latency_max is None else max(self.latency_max, latency)
            )


@dataclass(frozen=True)
class _Last:
    at: datetime
    state: str
    valid_for_s: float


RollupKey = tuple[str, int, str, datetime]


def bucket_start(at: datetime, granularity: str) -> datetime:
    """The start of the UTC hour or day holding `at`."""
    at = at.astimezone(UTC)
    if granularity == "hour":
        return at.replace(minute=0, second=0, microsecond=0)
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def split(start: datetime, end: datetime, granularity: str) -> Iterator[tuple[datetime, float]]:
    """(bucket start, seconds) for each UTC bucket the span [start, end) touches."""
    cursor = start.astimezone(UTC)
    end = end.astimezone(UTC)
    while cursor < end:
        bucket = bucket_start(cursor, granularity)
        stop = min(bucket + SIZES[granularity], end)
        yield bucket, (stop - cursor).total_seconds()
        cursor = stop


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for offset in range(0, len(ids), _CHUNK):
        yield ids[offset : offset + _CHUNK]


def _by_type(keys: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    grouped: dict[str, set[int]] = defaultdict(set)
    for subject_type, subject_id in keys:
        grouped[subject_type].add(subject_id)
    return {subject_type: sorted(ids) for subject_type, ids in grouped.items()}


class Upsert:
    """INSERT … ON CONFLICT (keys) DO UPDATE for many rows, on SQLite and PostgreSQL.

    update(excluded) gives the SET clause; `excluded` holds the row that was to be
    inserted, and table.c the stored one. The statement is built and compiled once per
    dialect: SQLAlchemy cannot cache the compiled form of an ON CONFLICT clause, and
    compiling it again for every batch cost more than running it.
    """

    def __init__(
        self,
        table: Table,
        *,
        keys: Sequence[str],
        update: Callable[[Any], Mapping[str, Any]],
        where: Callable[[Any], ColumnElement[bool]] | None = None,
    ) -> None:
        self.table = table
        self.keys = list(keys)
        self.update = update
        self.where = where
        self._built: dict[str, TextClause] = {}

    def statement(self, dialect: str) -> TextClause:
        built = self._built.get(dialect)
        if built is None:
            module = postgresql if dialect == "postgresql" else sqlite
            insert = module.insert(self.table)
            excluded = insert.excluded
            upsert = insert.on_conflict_do_update(
                index_elements=self.keys,
                set_=dict(self.update(excluded)),
                where=self.where(excluded) if self.where is not None else None,
            )
            # Named parameters, typed as their columns: the session's dialect binds them.
            compiled = upsert.compile(dialect=module.dialect(paramstyle="named"))
            built = self._built[dialect] = text(str(compiled)).bindparams(
                *(bindparam(name, type_=bind.type) for name, bind in compiled.binds.items())
            )
        return built

    async def __call__(self, session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            dialect = session.get_bind().dialect.name
            await session.execute(self.statement(dialect), list(rows))


def _lowest(stored: Any, new: Any) -> Any:
    return case((or_(stored.is_(None), new < stored), new), else_=stored)


def _highest(stored: Any, new: Any) -> Any:
    return case((or_(stored.is_(None), new > stored), new), else_=stored)


def _rollup_update(excluded: Any) -> dict[str, Any]:
    c = _table(CheckRollup).c
    added = ("up_s", "down_s", "maintenance_s", "checks", "failures")
    update: dict[str, Any] = {name: c[name] + excluded[name] for name in added}
    update |= {name: c[name] + excluded[name] for name in ("latency_sum", "latency_count")}
    update["latency_min"] = _lowest(c.latency_min, excluded.latency_min)
    update["latency_max"] = _highest(c.latency_max, excluded.latency_max)
    return update


def _table(model: type[Any]) -> Table:
    return cast(Table, model.__table__)


_results = _table(CheckResult)
_rollups_table = _table(CheckRollup)
_lasts = _table(LastObservation)

# Built once: building these per batch (and the ORM's handling of whole rows) cost more
# CPU than running them.
_INSERT_RESULTS: Final = _results.insert()
_UPSERT_ROLLUPS: Final = Upsert(
    _rollups_table,
    keys=("subject_type", "subject_id", "granularity", "period_start"),
    update=_rollup_update,
)
_UPSERT_LASTS: Final = Upsert(
    _lasts,
    keys=("subject_type", "subject_id"),
    update=lambda excluded: {
        name: excluded[name]
        for name in ("team_id", "at", "state", "valid_for_s", "latency_ms", "error")
    },
    where=lambda excluded: _lasts.c.at <= excluded.at,
)
_LAST_OF: Final = (
    select(_lasts.c.subject_id, _lasts.c.at, _lasts.c.state, _lasts.c.valid_for_s)
    .where(
        _lasts.c.subject_type == bindparam("last_type"),
        _lasts.c.subject_id.in_(bindparam("last_ids", expanding=True)),
    )
    .with_for_update()
)


async def _last_observations(
    session: AsyncSession, keys: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], _Last]:
    found: dict[tuple[str, int], _Last] = {}
    for subject_type, ids in _by_type(keys).items():
        for chunk in _chunks(ids):
            rows = await session.execute(_LAST_OF, {"last_type": subject_type, "last_ids": chunk})
            for subject_id, at, state, valid_for_s in rows:
                found[(subject_type, subject_id)] = _Last(at, state, valid_for_s)
    return found


async def record(session: AsyncSession, observations: Sequence[Observation]) -> None:
    """Store a batch of observations: raw results, rollups and each subject's last state.

    A few statements per batch whatever its size (one SELECT of the subjects' last
    observations per subject type, one executemany each for results, rollups and last
    observations). Observations may come in any order and mix subjects.
    """
    if not observations:
        return
    by_subject: dict[tuple[str, int], list[Observation]] = defaultdict(list)
    for observation in observations:
        by_subject[observation.key].append(observation)
    previous = await _last_observations(session, by_subject)

    totals: dict[RollupKey, _Totals] = {}

    def bucket(observation: Observation, granularity: str, start: datetime) -> _Totals:
        key = (observation.subject_type, observation.subject_id, granularity, start)
        if key not in totals:
            totals[key] = _Totals(observation.team_id)
        return totals[key]

    latest: dict[tuple[str, int], Observation] = {}
    for key, batch in by_subject.items():
        batch.sort(key=lambda o: o.at)
        last = previous.get(key)
        for observation in batch:
            for granularity in SIZES:
                bucket(
                    observation, granularity, bucket_start(observation.at, granularity)
                ).add_check(observation)
            if last is not None and observation.at < last.at:
                continue  # a late result: counted, but attributes no span
            if last is not None:
                end = min(observation.at, last.at + timedelta(seconds=last.valid_for_s))
                for granularity in SIZES:
                    for start, seconds in split(last.at, end, granularity):
                        bucket(observation, granularity, start).add_time(last.state, seconds)
            last = _Last(observation.at, observation.state, observation.valid_for_s)
            latest[key] = observation

    await session.execute(
        _INSERT_RESULTS,
        [
            {
                "team_id": o.team_id,
                "subject_type": o.subject_type,
                "subject_id": o.subject_id,
                "at": o.at,
                "state": o.state,
                "latency_ms": o.latency_ms,
                "error": o.error,
            }
            for o in observations
        ],
    )
    await _UPSERT_ROLLUPS(
        session,
        [
            {
                "subject_type": subject_type,
                "subject_id": subject_id,
                "granularity": granularity,
                "period_start": start,
                "team_id": t.team_id,
                "up_s": t.up_s,
                "down_s": t.down_s,
                "maintenance_s": t.maintenance_s,
                "checks": t.checks,
                "failures": t.failures,
                "latency_sum": t.latency_sum,
                "latency_count": t.latency_count,
                "latency_min": t.latency_min,
                "latency_max": t.latency_max,
            }
            for (subject_type, subject_id, granularity, start), t in totals.items()
        ],
    )
    await _UPSERT_LASTS(
        session,
        [
            {
                "subject_type": o.subject_type,
                "subject_id": o.subject_id,
                "team_id": o.team_id,
                "at": o.at,
                "state": o.state,
                "valid_for_s": o.valid_for_s,
                "latency_ms": o.latency_ms,
                "error": o.error,
            }
            for o in latest.values()
        ],
    )


async def prune(
    session: AsyncSession,
    *,
    now: datetime,
    raw_for: timedelta = RAW_RETENTION,
    raw_max: int = RAW_MAX_PER_SUBJECT,
    hourly_for: timedelta = HOURLY_RETENTION,
    daily_for: timedelta = DAILY_RETENTION,
) -> int:
    """Delete raw results and rollups past their retention; the number of rows deleted.

    Raw results: those older than raw_for, and beyond the newest raw_max of each subject.
    Meant to run periodically (e.g. every few minutes) from the engine.
    """
    ranked = select(
        CheckResult.id,
        func.row_number()
        .over(
            partition_by=(CheckResult.subject_type, CheckResult.subject_id),
            order_by=(CheckResult.at.desc(), CheckResult.id.desc()),
        )
        .label("rank"),
    ).subquery()
    statements = [
        delete(CheckResult).where(CheckResult.at < now - raw_for),
        delete(CheckResult).where(
            CheckResult.id.in_(select(ranked.c.id).where(ranked.c.rank > raw_max))
        ),
        delete(CheckRollup).where(
            CheckRollup.granularity == "hour", CheckRollup.period_start < now - hourly_for
        ),
        delete(CheckRollup).where(
            CheckRollup.granularity == "day", CheckRollup.period_start < now - daily_for
        ),
    ]
    deleted = 0
    for statement in statements:
        result = await session.execute(statement, execution_options={"synchronize_session": False})
        deleted += cast(Any, result).rowcount or 0
    return deleted


async def forget(session: AsyncSession, *, subject_type: str, subject_id: int) -> None:
    """Delete everything recorded about a subject (call when it is deleted)."""
    for model in (CheckResult, CheckRollup, LastObservation):
        await session.execute(
            delete(model).where(model.subject_type == subject_type, model.subject_id == subject_id),
            execution_options={"synchronize_session": False},
        )


# ---------------------------------------------------------------------------- reading


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


def _standing(last: LastObservation | None, now: datetime) -> Bucket | None:
    if last is None:
        return None
    end = min(now, last.at + timedelta(seconds=last.valid_for_s))
    if end <= last.at:
        return None
    seconds = (end - last.at).total_seconds()
    return Bucket(
        last.at,
        end,
        up_s=seconds if last.state == "up" else 0.0,
        down_s=seconds if last.state == "down" else 0.0,
        maintenance_s=seconds if last.state == "maintenance" else 0.0,
    )


async def _rollups(
    session: AsyncSession,
    subject_type: str,
    ids: Sequence[int],
    granularity: str,
    *,
    now: datetime,
    periods: Sequence[tuple[datetime, datetime]],
) -> list[tuple[int, Bucket]]:
    """(subject id, bucket) for the rollups starting within any of the periods."""
    size = SIZES[granularity]
    c = _rollups_table.c
    rows = await session.execute(
        select(c.subject_id, c.period_start, c.up_s, c.down_s, c.maintenance_s)
        .where(
            c.subject_type == subject_type,
            c.subject_id.in_(ids),
            c.granularity == granularity,
            or_(*(and_(c.period_start >= start, c.period_start < end) for start, end in periods)),
        )
        .order_by(c.subject_id, c.period_start)
    )
    found: list[tuple[int, Bucket]] = []
    for subject_id, period_start, up_s, down_s, maintenance_s in rows:
        end = period_start + size
        if period_start < now < end:
            end = now
        found.append((subject_id, Bucket(period_start, end, up_s, down_s, maintenance_s)))
    return found


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

    Buckets of the current hour/day end at now, so that a partly elapsed bucket is not
    spread over time that has not happened yet. With granularity "day", a day that was
    only partly observed comes as its hours instead, so that readers still know which
    part of it was observed.
    """
    ids = sorted(set(subject_ids))
    buckets: dict[int, list[Bucket]] = defaultdict(list)
    lasts: dict[int, LastObservation] = {}
    window = [(bucket_start(since, granularity), now)]
    for chunk in _chunks(ids):
        partial: dict[datetime, set[int]] = defaultdict(set)
        for subject_id, bucket in await _rollups(
            session, subject_type, chunk, granularity, now=now, periods=window
        ):
            length = (bucket.end - bucket.start).total_seconds()
            if granularity == "day" and bucket.observed_s < length - 1:
                partial[bucket.start].add(subject_id)
            else:
                buckets[subject_id].append(bucket)
        days = sorted(partial)
        for offset in range(0, len(days), 50):
            periods = [(day, day + SIZES["day"]) for day in days[offset : offset + 50]]
            for subject_id, bucket in await _rollups(
                session, subject_type, chunk, "hour", now=now, periods=periods
            ):
                if subject_id in partial[bucket_start(bucket.start, "day")]:
                    buckets[subject_id].append(bucket)
        for last_row in await session.scalars(
            select(LastObservation).where(
                LastObservation.subject_type == subject_type,
                LastObservation.subject_id.in_(chunk),
            )
        ):
            lasts[last_row.subject_id] = last_row
    found: dict[int, History] = {}
    for subject_id in ids:
        last = lasts.get(subject_id)
        standing = _standing(last, now)
        state = None
        if last is not None and last.at <= now < last.at + timedelta(seconds=last.valid_for_s):
            state = last.state
        found[subject_id] = History(
            buckets=sorted(buckets[subject_id], key=lambda b: b.start)
            + ([standing] if standing else []),
            state=state,
            last_at=last.at if last is not None else None,
            standing=standing,
        )
    return found


def _ceil(at: datetime, granularity: str) -> datetime:
    start = bucket_start(at, granularity)
    return start if start == at else start + SIZES[granularity]


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
    c = _rollups_table.c
    first_day, last_day = _ceil(start, "day"), bucket_start(end, "day")
    first_hour, last_hour = _ceil(start, "hour"), bucket_start(end, "hour")
    spans: list[tuple[str, datetime, datetime]] = []
    if first_day < last_day:
        spans += [("day", first_day, last_day), ("hour", first_hour, first_day)]
        spans.append(("hour", last_day, last_hour))
    else:
        spans.append(("hour", first_hour, last_hour))
    wanted = [(granularity, low, high) for granularity, low, high in spans if low < high]
    observed = c.up_s + c.down_s + c.maintenance_s
    hour_s = SIZES["hour"].total_seconds()
    edges = {
        hour: (min(hour + SIZES["hour"], end) - max(hour, start)).total_seconds() / hour_s
        for hour in {bucket_start(start, "hour"), last_hour}
        if hour < end and (hour < start or hour + SIZES["hour"] > end)
    }
    totals: dict[int, tuple[float, float]] = defaultdict(lambda: (0.0, 0.0))
    ids = sorted(set(subject_ids))
    for chunk in _chunks(ids):
        base = (c.subject_type == subject_type, c.subject_id.in_(chunk))
        for granularity, low, high in wanted:  # one index range each (an OR would scan)
            summed = await session.execute(
                select(c.subject_id, func.sum(observed), func.sum(c.maintenance_s))
                .where(
                    *base,
                    c.granularity == granularity,
                    c.period_start >= low,
                    c.period_start < high,
                )
                .group_by(c.subject_id)
            )
            for subject_id, seen, maintenance in summed:
                before = totals[subject_id]
                totals[subject_id] = (
                    before[0] + float(seen or 0),
                    before[1] + float(maintenance or 0),
                )
        for hour, share in edges.items():
            cut = await session.execute(
                select(c.subject_id, observed, c.maintenance_s).where(
                    *base, c.granularity == "hour", c.period_start == hour
                )
            )
            for subject_id, seen, maintenance in cut:
                before = totals[subject_id]
                totals[subject_id] = (before[0] + seen * share, before[1] + maintenance * share)
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
    c = _rollups_table.c
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
    return select(c.subject_id, c.period_start, c.up_s, c.down_s, c.maintenance_s).where(
        or_(*terms)
    )


async def _rollups_in_spans(
    session: AsyncSession, subject_type: str, granularity: str, spans: Sequence[Span], now: datetime
) -> list[tuple[int, Bucket]]:
    """(subject id, bucket) for each rollup starting within one of its subject's spans."""
    size = SIZES[granularity]
    found: list[tuple[int, Bucket]] = []
    most = _SPAN_COUNTS[-1]
    for offset in range(0, len(spans), most):
        chunk = list(spans[offset : offset + most])
        count = next(n for n in _SPAN_COUNTS if n >= len(chunk))
        chunk += [chunk[-1]] * (count - len(chunk))
        params: dict[str, Any] = {"subject_type": subject_type, "granularity": granularity}
        for n, (subject_id, low, high) in enumerate(chunk):
            params |= {f"id{n}": subject_id, f"low{n}": low, f"high{n}": high}
        rows = await session.execute(_in_spans(count), params)
        for subject_id, period_start, up_s, down_s, maintenance_s in rows:
            end = min(period_start + size, now) if period_start < now else period_start + size
            found.append((subject_id, Bucket(period_start, end, up_s, down_s, maintenance_s)))
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
        length = (bucket.end - bucket.start).total_seconds()
        if granularity == "day" and bucket.observed_s < length - 1:
            partial.add((subject_id, bucket.start))
        else:
            found[subject_id].append(bucket)
    days = [(sid, day, day + SIZES["day"]) for sid, day in sorted(partial)]
    for subject_id, bucket in await _rollups_in_spans(session, subject_type, "hour", days, now):
        found[subject_id].append(bucket)
    return {sid: sorted(buckets, key=lambda b: b.start) for sid, buckets in found.items()}
