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
from watchpost.engine import located
from watchpost.engine.checked_rows import KINDS, MONITOR, TARGET
from watchpost.engine.checks import Outcome
from watchpost.engine.located import LOCATED, Spot
from watchpost.engine.schedule import next_due
from watchpost.history.service import Observation, SubjectType, record
from watchpost.monitors import checking as monitors
from watchpost.monitors.confirmation import Verdict
from watchpost.monitors.status_machine import Transition
from watchpost.probes.monitors.check import UNSUPPORTED
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
    located: bool
    confirmation_rule: str
    confirmation_locations: int | None
    degraded_since: datetime | None
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
        degraded_since=bindparam("m_degraded", type_=UTCDateTime()),
    )
)
_VERDICT_MONITOR = _FINISH_MONITOR.values(
    # An agent's result: the monitor's own schedule and lease (the server's check) stay.
    lease_owner=_monitors.c.lease_owner,
    lease_expires_at=_monitors.c.lease_expires_at,
    next_check_at=_monitors.c.next_check_at,
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
    checked = by_kind.get(MONITOR, []) + by_kind.get(LOCATED, [])
    if checked:
        seen += await _write_monitors(session, checked, report)
    for kind, items in by_kind.items():
        if kind in (MONITOR, LOCATED):
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


def _monitor_of(outcome: Outcome) -> int:
    return int(outcome.claim.row.monitor_id) if outcome.claim.kind == LOCATED else outcome.claim.id


async def _write_monitors(
    session: AsyncSession, items: Sequence[Outcome], report: WriteReport
) -> list[Observation]:
    """Apply the monitors' results (the server's and its agents'): one locking SELECT, one
    executemany UPDATE, then the incidents the status machine decided."""
    locked: Sequence[Row[Any]] = (
        await session.execute(_LOCK_MONITORS, {"lock_ids": sorted(set(map(_monitor_of, items)))})
    ).all()
    rows = {row.id: _Monitor(*row) for row in locked}
    spots = await located.lock_spots(session, (m.id for m in rows.values() if m.located))
    own: set[int] = set()  # monitors whose own (the server's) check finished here
    touched: dict[int, _Monitor] = {}
    decided: list[tuple[_Monitor, Transition, Outcome, Verdict | None]] = []
    seen: list[Observation] = []
    for outcome in sorted(items, key=lambda o: o.finished_at):
        row = rows.get(_monitor_of(outcome))
        spot = _spot(row, spots, outcome) if row is not None else None
        if row is None or not _valid(row, spot, outcome):
            report.discarded += 1
            continue
        if outcome.claim.kind == MONITOR:
            row.lease_owner = None
            own.add(row.id)
        touched[row.id] = row
        observation, transition, found = _monitor_done(row, spot, spots.get(row.id, []), outcome)
        if transition is not None:
            decided.append((row, transition, outcome, found))
        if observation is not None:
            seen.append(observation)
        report.applied += 1
    for statement, group in ((_FINISH_MONITOR, own), (_VERDICT_MONITOR, touched.keys() - own)):
        if group:
            await session.execute(statement, [_params(touched[i]) for i in sorted(group)])
    await located.write_spots(session, (s for group in spots.values() for s in group))
    for row, transition, done, found in decided:
        await monitors.follow_incident(
            session,
            monitor=row,
            transition=transition,
            at=done.finished_at,
            result=done.result,
            locations=found.regions() if found is not None else None,
        )
    return seen


def _spot(row: _Monitor, spots: dict[int, list[Spot]], outcome: Outcome) -> Spot | None:
    """The location row the outcome is for: the agent's, or the server's own location's."""
    for spot in spots.get(row.id, ()):
        if outcome.claim.kind == LOCATED and spot.id == outcome.claim.id:
            return spot
        if outcome.claim.kind == MONITOR and spot.is_server:
            return spot
    return None


def _valid(row: _Monitor, spot: Spot | None, outcome: Outcome) -> bool:
    """The claim still holds: the lease it was made with is on the row, unchanged."""
    if outcome.claim.kind == MONITOR:
        return _holds_lease(row, outcome)
    return (
        spot is not None
        and not row.paused
        and spot.lease_owner == outcome.claim.owner
        and spot.next_check_at == outcome.claim.due
    )


def _params(row: _Monitor) -> dict[str, Any]:
    return {
        "m_id": row.id,
        "m_next": row.next_check_at,
        "m_checked": row.last_checked_at,
        "m_status": row.status,
        "m_check_status": row.check_status,
        "m_failing": row.failing_since,
        "m_recovering": row.recovering_since,
        "m_error": row.last_error,
        "m_degraded": row.degraded_since,
    }


def _monitor_done(
    monitor: _Monitor, spot: Spot | None, spots: Sequence[Spot], outcome: Outcome
) -> tuple[Observation | None, Transition | None, Verdict | None]:
    """The monitor's new columns (set on `monitor`, and on the location's row), its
    observation, the machine's transition (None when the machine did not run) and, for a
    monitor checked from several locations, the verdict the machine was given."""
    due, finished, result = outcome.claim.due, outcome.finished_at, outcome.result
    interval = monitor.check_frequency
    agent = spot if outcome.claim.kind == LOCATED else None
    where = spot.location_id if spot is not None and not spot.is_server else None
    if result is None:
        assert outcome.maintenance_until is not None
        monitors.skip_for_maintenance(monitor)
        _reschedule(monitor, agent, outcome.maintenance_until)
        remaining = math.ceil((outcome.maintenance_until - finished).total_seconds())
        observation = Observation(
            team_id=monitor.team_id,
            subject_type=MONITOR,
            subject_id=monitor.id,
            at=finished,
            state="maintenance",
            valid_for_s=max(remaining, 2 * interval),
            location_id=where,
        )
        return observation, None, None
    scheduled = next_due(outcome.claim.kind, outcome.claim.id, interval, due=due, finished=finished)
    found: Verdict | None = None
    checked = result
    if monitor.located and spot is not None and UNSUPPORTED not in result.details:
        located.store(spot, result, at=finished)
        found = located.judge(
            spots,
            rule=monitor.confirmation_rule,
            at_least=monitor.confirmation_locations,
            interval_s=interval,
            at=finished,
        )
        checked = located.combined(found, result)
        monitor.degraded_since = (monitor.degraded_since or finished) if found.degraded else None
    transition = monitors.record_result(monitor, checked, at=finished)
    if transition is None:
        _reschedule(monitor, agent, scheduled)
        return None, None, found
    recheck = transition.recheck_at
    _reschedule(
        monitor,
        agent,
        recheck if recheck is not None and finished < recheck < scheduled else scheduled,
    )
    observation = Observation(
        team_id=monitor.team_id,
        subject_type=MONITOR,
        subject_id=monitor.id,
        at=finished,
        state="up" if checked.ok else "down",
        valid_for_s=2 * interval,
        latency_ms=result.latency_ms,
        error=result.error,
        location_id=where,
    )
    return observation, transition, found


def _reschedule(monitor: _Monitor, agent: Spot | None, at: datetime) -> None:
    """The next check of the server's own (the monitor row) or of the agent's location."""
    if agent is None:
        monitor.next_check_at = at
        return
    agent.next_check_at = at
    agent.lease_owner = None
    agent.changed = True


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
