"""Writing finished checks back: one transaction per batch, each result applied only if the
row still carries the lease it was claimed with.

The rows of a batch are locked (`FOR UPDATE`, in id order so writers never deadlock) and a
result counts only when the row's `lease_owner` and `next_check_at` are still the claim's
owner and due time. Otherwise another worker took the check over after the lease expired,
or the object was changed, paused or deleted meanwhile: the result is dropped entirely —
no column, incident, history observation, metric sample or collector status comes from
it, and the row's lease (now someone else's, or a newer claim's) is left alone — so no due
time is completed twice.

Monitors, the bulk of the checks, are read and written with statements built once (Core,
on the table): the locked rows' columns the status machine needs are read, the new values
computed, and written back with one executemany UPDATE by id, before the incidents the
results open or resolve. What a result means for its object is decided in the object's
domain (monitors/checking.py, collectors/checking.py); this module schedules the next check
and records the result in the check history.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors import checking as targets
from watchpost.collectors import metrics
from watchpost.collectors.checking import refresh_collector
from watchpost.collectors.models import CollectorTarget
from watchpost.db.base import UTCDateTime
from watchpost.engine.checked_rows import KINDS, MONITOR, TARGET
from watchpost.engine.checks import Outcome
from watchpost.engine.schedule import next_due
from watchpost.history.service import Observation, SubjectType, record
from watchpost.monitors import checking as monitors
from watchpost.monitors.status_machine import Transition
from watchpost.settings import Settings

_monitors = KINDS[MONITOR].table


@dataclass(slots=True)
class _Monitor:
    """The columns of a locked monitor row the writer reads; the machine's ones change."""

    id: int
    lease_owner: str | None
    next_check_at: datetime | None
    team_id: int
    check_frequency: int
    paused: bool
    status: str
    check_status: str
    failing_since: datetime | None
    recovering_since: datetime | None
    last_error: str | None
    confirmation_period: int
    recovery_period: int
    pronounceable_name: str | None
    url: str
    last_checked_at: datetime | None = None
    """Set when a check ran (a maintenance skip leaves the stored one)."""


_LOCK_MONITORS = (
    select(
        *(_monitors.c[name] for name in _Monitor.__dataclass_fields__ if name != "last_checked_at")
    )
    .where(_monitors.c.id.in_(bindparam("lock_ids", expanding=True)))
    .order_by(_monitors.c.id)
    .with_for_update()
)
_FINISH_MONITOR = (
    update(_monitors)
    .where(_monitors.c.id == bindparam("m_id"))
    .values(
        lease_owner=None,
        lease_expires_at=None,
        next_check_at=bindparam("m_next", type_=UTCDateTime()),
        last_checked_at=func.coalesce(
            bindparam("m_checked", type_=UTCDateTime()), _monitors.c.last_checked_at
        ),
        status=bindparam("m_status"),
        check_status=bindparam("m_check_status"),
        failing_since=bindparam("m_failing", type_=UTCDateTime()),
        recovering_since=bindparam("m_recovering", type_=UTCDateTime()),
        last_error=bindparam("m_error"),
    )
)


@dataclass
class WriteReport:
    applied: int = 0
    discarded: int = 0


def _holds_lease(row: Any, outcome: Outcome) -> bool:
    return bool(row.lease_owner == outcome.claim.owner and row.next_check_at == outcome.claim.due)


async def write_outcomes(
    session: AsyncSession, outcomes: Sequence[Outcome], *, settings: Settings
) -> WriteReport:
    """Apply a batch of results; call inside one write transaction."""
    report = WriteReport()
    seen: list[Observation] = []
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_kind[outcome.claim.kind].append(outcome)
    collectors: set[int] = set()
    samples: list[dict[str, Any]] = []
    for kind, items in by_kind.items():
        if kind == MONITOR:
            seen += await _write_monitors(session, items, report)
            continue
        model = KINDS[kind].model
        ids = sorted({o.claim.id for o in items})
        locked = await session.scalars(
            select(model).where(model.id.in_(ids)).order_by(model.id).with_for_update()
        )
        rows = {row.id: row for row in locked}
        for outcome in items:
            row = rows.get(outcome.claim.id)
            if row is None or not _holds_lease(row, outcome):
                report.discarded += 1
                continue
            row.lease_owner = row.lease_expires_at = None
            was = row.status
            observation = _target_done(row, outcome, settings)
            collectors.add(row.collector_id)
            await targets.follow_incident(session, row, was=was, at=outcome.finished_at)
            if outcome.result is not None and outcome.result.ok:
                sample = metrics.sample_row(
                    team_id=row.team_id,
                    target_id=row.id,
                    at=outcome.finished_at,
                    metrics=outcome.result.metrics,
                )
                if sample is not None:
                    samples.append(sample)
            seen.append(observation)
            report.applied += 1
    await session.flush()
    await metrics.add_samples(session, samples)
    for collector_id in sorted(collectors):
        await refresh_collector(session, collector_id)
    await record(session, seen)
    return report


async def _write_monitors(
    session: AsyncSession, items: Sequence[Outcome], report: WriteReport
) -> list[Observation]:
    """Apply the monitors' results: one locking SELECT, one executemany UPDATE, then the
    incidents the status machine decided."""
    ids = sorted({o.claim.id for o in items})
    locked: Sequence[Row[Any]] = (await session.execute(_LOCK_MONITORS, {"lock_ids": ids})).all()
    rows = {row.id: _Monitor(*row) for row in locked}
    finished: list[dict[str, Any]] = []
    decided: list[tuple[_Monitor, Transition, Outcome]] = []
    seen: list[Observation] = []
    for outcome in items:
        row = rows.get(outcome.claim.id)
        if row is None or not _holds_lease(row, outcome):
            report.discarded += 1
            continue
        row.lease_owner = None
        row.last_checked_at = None
        observation, transition = _monitor_done(row, outcome)
        finished.append(
            {
                "m_id": row.id,
                "m_next": row.next_check_at,
                "m_checked": row.last_checked_at,
                "m_status": row.status,
                "m_check_status": row.check_status,
                "m_failing": row.failing_since,
                "m_recovering": row.recovering_since,
                "m_error": row.last_error,
            }
        )
        if transition is not None:
            decided.append((row, transition, outcome))
        if observation is not None:
            seen.append(observation)
        report.applied += 1
    if finished:
        await session.execute(_FINISH_MONITOR, finished)
    for row, transition, done in decided:
        await monitors.follow_incident(
            session, monitor=row, transition=transition, at=done.finished_at, result=done.result
        )
    return seen


def _monitor_done(
    monitor: _Monitor, outcome: Outcome
) -> tuple[Observation | None, Transition | None]:
    """The monitor's new columns (set on `monitor`), its observation and the machine's
    transition (None when the machine did not run)."""
    due, finished, result = outcome.claim.due, outcome.finished_at, outcome.result
    interval = monitor.check_frequency
    if result is None:
        assert outcome.maintenance_until is not None
        monitors.skip_for_maintenance(monitor)
        monitor.next_check_at = outcome.maintenance_until
        remaining = math.ceil((outcome.maintenance_until - finished).total_seconds())
        observation = Observation(
            team_id=monitor.team_id,
            subject_type=MONITOR,
            subject_id=monitor.id,
            at=finished,
            state="maintenance",
            valid_for_s=max(remaining, 2 * interval),
            latency_ms=None,
            error=None,
        )
        return observation, None
    scheduled = next_due(MONITOR, monitor.id, interval, due=due, finished=finished)
    transition = monitors.record_result(monitor, result, at=finished)
    if transition is None:
        monitor.next_check_at = scheduled
        return None, None
    recheck = transition.recheck_at
    monitor.next_check_at = (
        recheck if recheck is not None and finished < recheck < scheduled else scheduled
    )
    return _observation(MONITOR, monitor.team_id, monitor.id, outcome, 2 * interval), transition


def _target_done(target: CollectorTarget, outcome: Outcome, settings: Settings) -> Observation:
    assert outcome.result is not None
    interval = settings.target_check_interval
    targets.record_result(target, outcome.result, at=outcome.finished_at)
    target.next_check_at = next_due(
        TARGET, target.id, interval, due=outcome.claim.due, finished=outcome.finished_at
    )
    return _observation(TARGET, target.team_id, target.id, outcome, 2 * interval)


def _observation(
    kind: SubjectType,
    team_id: int,
    subject_id: int,
    outcome: Outcome,
    valid_for_s: int,
) -> Observation:
    result = outcome.result
    assert result is not None
    return Observation(
        team_id=team_id,
        subject_type=kind,
        subject_id=subject_id,
        at=outcome.finished_at,
        state="up" if result.ok else "down",
        valid_for_s=valid_for_s,
        latency_ms=result.latency_ms,
        error=result.error,
    )
