"""Recording observations and pruning old rows; history/reading.py reads them. No HTTP.

How time is attributed:

- The span from a subject's observation to its next one belongs to the earlier
  observation's state, but only up to `valid_for_s` after it: time beyond that was not
  observed (the checker was stopped, or the item paused) and is never counted as up.
- Spans are split at UTC hour and day boundaries into hourly and daily rollups
  (history/periods.py).
- checks, failures (down observations) and latency belong to the bucket of the
  observation's own time.
- An observation older than the subject's latest one (a late result) is kept as a raw
  result and counted in checks/latency, but attributes no span: time already attributed
  is never rewritten.
- A subject's observations should be recorded by one writer at a time (the engine's
  lease); on PostgreSQL the last-observation rows are locked while a batch is recorded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Literal, cast, get_args

from sqlalchemy import (
    Table,
    bindparam,
    case,
    delete,
    func,
    or_,
    select,
)
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.upsert import Upsert
from watchpost.history.models import CheckResult, CheckRollup, LastObservation
from watchpost.history.periods import SIZES, bucket_start, chunks, split

SubjectType = Literal["monitor", "heartbeat", "collector_target"]
State = Literal["up", "down", "maintenance"]

SUBJECT_TYPES: Final[tuple[str, ...]] = get_args(SubjectType)
STATES: Final[tuple[str, ...]] = get_args(State)

RAW_RETENTION: Final = timedelta(hours=24)
RAW_MAX_PER_SUBJECT: Final = 3000
"""24 h of a 30-second check; also bounds subjects observed far more often."""
HOURLY_RETENTION: Final = timedelta(days=400)
"""Covers the longest status page history (365 days) in any time zone."""
DAILY_RETENTION: Final = timedelta(days=800)


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
    location_id: int | None = None
    """Where the check ran (None: the server's own engine)."""

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


def _by_type(keys: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    grouped: dict[str, set[int]] = defaultdict(set)
    for subject_type, subject_id in keys:
        grouped[subject_type].add(subject_id)
    return {subject_type: sorted(ids) for subject_type, ids in grouped.items()}


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
_rollups = _table(CheckRollup)
_lasts = _table(LastObservation)

# Built once: building these per batch (and the ORM's handling of whole rows) cost more
# CPU than running them.
_INSERT_RESULTS: Final = _results.insert()
_UPSERT_ROLLUPS: Final = Upsert(
    _rollups,
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
        for chunk in chunks(ids):
            rows = await session.execute(_LAST_OF, {"last_type": subject_type, "last_ids": chunk})
            for subject_id, at, state, valid_for_s in rows:
                found[(subject_type, subject_id)] = _Last(at, state, valid_for_s)
    return found


def _tally(
    by_subject: Mapping[tuple[str, int], list[Observation]],
    previous: Mapping[tuple[str, int], _Last],
) -> tuple[dict[RollupKey, _Totals], dict[tuple[str, int], Observation]]:
    """The rollup increments of a batch, and each subject's latest observation in it."""
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
    return totals, latest


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
    totals, latest = _tally(by_subject, await _last_observations(session, by_subject))

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
                "location_id": o.location_id,
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
