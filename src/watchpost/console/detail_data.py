"""What a monitor's, a heartbeat's and a collector target's console pages show.

Each detail is a handful of indexed, bounded reads through the same service functions the
API uses: the object (another team's is the API's NotFound), its availability as the
API's `/sla` counts it (from incidents), its latest checks and incidents, and the series
of its chart (console/series.py): a monitor's response times, a heartbeat's states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors import service as collectors
from watchpost.collectors.models import Collector, CollectorTarget, TargetMetricSample
from watchpost.console.detail_locations import CheckedFrom, checked_from, rule_words
from watchpost.console.series import Point, Slot, response_series, state_series
from watchpost.console.states import State, heartbeat_state, monitor_state, target_state
from watchpost.heartbeats import service as heartbeats
from watchpost.heartbeats.models import Heartbeat
from watchpost.heartbeats.pings import ping_log
from watchpost.history.reading import recent_results
from watchpost.incidents.models import Incident
from watchpost.monitors import service as monitors
from watchpost.monitors.models import Monitor
from watchpost.reports import service as reports

AVAILABILITY_RANGES: Final[dict[str, timedelta]] = {
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
    "365d": timedelta(days=365),
}


@dataclass(frozen=True)
class CheckRow:
    """One raw check result (kept a day at most): `state` is up, down or maintenance."""

    at: datetime
    ok: bool
    state: str
    ms: float | None
    error: str | None


@dataclass(frozen=True)
class PingRow:
    """A logged ping: `kind` is "success" or "fail" (a /fail or a non-zero exit code)."""

    at: datetime
    kind: str
    exit_code: int | None
    body: str | None
    body_truncated: bool = False
    address: str | None = None
    user_agent: str | None = None


@dataclass(frozen=True)
class MetricSample:
    """The numbers one successful check of a target read."""

    at: datetime
    values: dict[str, float]


@dataclass(frozen=True, kw_only=True)
class Record:
    """What every detail page shows of its object's record: its state and since when, its
    availability and its incidents."""

    state: State
    since: datetime | None
    availability: dict[str, float | None]
    """AVAILABILITY_RANGES name → percent (the API's /sla); None before the object existed."""
    incidents: list[Incident]
    """Newest first."""


@dataclass(frozen=True, kw_only=True)
class MonitorDetail(Record):
    monitor: Monitor
    series: dict[str, list[Point]]
    """"24h", "7d", "30d" → points, oldest first."""
    checks: list[CheckRow]
    """Newest first."""
    places: list[CheckedFrom]
    """The locations checking it (console/detail_locations.py), the server's first."""
    rule: str
    """Its confirmation rule in words."""
    degraded: bool
    """Up, though some locations fail (not enough for its rule)."""


@dataclass(frozen=True, kw_only=True)
class HeartbeatDetail(Record):
    heartbeat: Heartbeat
    ping_url: str
    history: dict[str, list[Slot]]
    """"24h", "7d", "30d" → its state slots, oldest first."""
    pings: list[PingRow]
    """Newest first: the heartbeat's ping log (at most pings.PING_LOG_SIZE)."""


@dataclass(frozen=True, kw_only=True)
class TargetDetail(Record):
    target: CollectorTarget
    collector: Collector
    checks: list[CheckRow]
    samples: list[MetricSample]
    """The latest metric samples, newest first (kept a day: collectors/metrics.py)."""


async def availability(
    session: AsyncSession, *, column: str, subject_id: int, created_at: datetime, now: datetime
) -> dict[str, float | None]:
    """Each range's availability as `/sla?from=<now - range>` answers it: the API's own
    summary over the part of the range the object existed (one query for all ranges)."""
    periods = {
        name: reports.Period(max(now - span, created_at), now)
        for name, span in AVAILABILITY_RANGES.items()
    }
    existed = {name: within for name, within in periods.items() if within.start < within.end}
    if not existed:
        return dict.fromkeys(periods)
    found = await reports.summaries(
        session, column=column, subject_id=subject_id, periods=list(existed.values()), now=now
    )
    shown = {
        name: float(summary["availability"]) for name, summary in zip(existed, found, strict=True)
    }
    return {name: shown.get(name) for name in periods}


LATEST_INCIDENTS: Final = 10
LATEST_CHECKS: Final = 20
LATEST_SAMPLES: Final = 20
"""How many of each the page shows."""


async def latest_incidents(
    session: AsyncSession, *, column: str, subject_id: int
) -> list[Incident]:
    """The object's newest incidents, newest first. By its reference column alone (the
    object was found in the team already): then its index is the only one to take, where
    a team_id term lets SQLite walk every incident of the team instead."""
    rows = await session.scalars(
        select(Incident)
        .where(getattr(Incident, column) == subject_id)
        .order_by(Incident.started_at.desc(), Incident.id.desc())
        .limit(LATEST_INCIDENTS)
    )
    return list(rows)


async def latest_checks(
    session: AsyncSession, *, subject_type: str, subject_id: int
) -> list[CheckRow]:
    results = await recent_results(
        session, subject_type=subject_type, subject_id=subject_id, limit=LATEST_CHECKS
    )
    return [
        CheckRow(row.at, row.state == "up", row.state, row.latency_ms, row.error) for row in results
    ]


def since(
    state: State,
    incidents: Sequence[Incident],
    *,
    created_at: datetime,
    paused_at: datetime | None,
    never_checked: bool,
    failing_since: datetime | None = None,
    recovering_since: datetime | None = None,
) -> datetime | None:
    """When the object entered its state, as far as the stored facts tell: down since the
    run of failures began (a monitor's `failing_since`) or its open incident started, up
    since its last incident resolved (else since it was created: a pause in between is not
    recorded), paused since it was paused, pending since a monitor's recovery began or,
    never checked, since creation; maintenance is not recorded."""
    if state == "paused":
        return paused_at
    if state == "down":
        if failing_since is not None:
            return failing_since
        open_ = next((i for i in incidents if i.resolved_at is None), None)
        return open_.started_at if open_ is not None else None
    if state == "up":
        resolved = [i.resolved_at for i in incidents if i.resolved_at is not None]
        return max(resolved, default=created_at)
    if state == "pending":
        return recovering_since or (created_at if never_checked else None)
    return None


async def _record(
    db: AsyncSession, column: str, subject: Any, state: State, now: datetime, **facts: Any
) -> tuple[list[Incident], datetime | None, dict[str, float | None]]:
    """The subject's latest incidents (its id in `column`), since when it is in state
    (`since`, facts its keyword arguments but created_at) and its availability."""
    incidents = await latest_incidents(db, column=column, subject_id=subject.id)
    entered = since(state, incidents, created_at=subject.created_at, **facts)
    shown = await availability(
        db, column=column, subject_id=subject.id, created_at=subject.created_at, now=now
    )
    return incidents, entered, shown


async def monitor_detail(
    db: AsyncSession, *, team_id: int, monitor_id: int, now: datetime
) -> MonitorDetail:
    """The monitor's page: 6 queries (the monitor, its incidents, availability, series,
    checks, the locations checking it); NotFound for another team's or a missing monitor."""
    monitor = await monitors.get_monitor(db, team_id=team_id, monitor_id=monitor_id)
    state = monitor_state(monitor)
    incidents, entered, shown = await _record(
        db,
        "monitor_id",
        monitor,
        state,
        now,
        paused_at=monitor.paused_at,
        never_checked=monitor.last_checked_at is None,
        failing_since=monitor.failing_since,
        recovering_since=monitor.recovering_since,
    )
    return MonitorDetail(
        monitor=monitor,
        state=state,
        since=entered,
        availability=shown,
        series=await response_series(db, subject_type="monitor", subject_id=monitor.id, now=now),
        checks=await latest_checks(db, subject_type="monitor", subject_id=monitor.id),
        incidents=incidents,
        places=await checked_from(db, monitor),
        rule=rule_words(monitor),
        degraded=state == "up" and monitor.degraded_since is not None,
    )


async def last_pings(db: AsyncSession, heartbeat: Heartbeat) -> list[PingRow]:
    """The heartbeat's ping log, newest first (one read along its primary key)."""
    if heartbeat.ping_count == 0:
        return []  # never pinged since the log began: no read
    return [
        PingRow(
            row.at,
            row.kind,
            row.exit_code,
            row.body,
            row.body_truncated,
            row.address,
            row.user_agent,
        )
        for row in await ping_log(db, heartbeat_id=heartbeat.id)
    ]


async def heartbeat_detail(
    db: AsyncSession, *, team_id: int, heartbeat_id: int, public_base: str, now: datetime
) -> HeartbeatDetail:
    """The heartbeat's page: 5 queries (the heartbeat, its incidents, availability, its
    history's series, its ping log: none for a heartbeat never pinged);
    `public_base` is what the API's `url` starts with (settings.public_base or the
    request's base URL)."""
    heartbeat = await heartbeats.get_heartbeat(db, team_id=team_id, heartbeat_id=heartbeat_id)
    state = heartbeat_state(heartbeat, now)
    never_checked = heartbeat.last_ping_at is None
    incidents, entered, shown = await _record(
        db,
        "heartbeat_id",
        heartbeat,
        state,
        now,
        paused_at=heartbeat.paused_at,
        never_checked=never_checked,
    )
    return HeartbeatDetail(
        heartbeat=heartbeat,
        state=state,
        since=entered,
        availability=shown,
        ping_url=f"{public_base}{heartbeats.PING_PATH}{heartbeat.token}",
        history=await state_series(db, subject_type="heartbeat", subject_id=heartbeat.id, now=now),
        pings=await last_pings(db, heartbeat),
        incidents=incidents,
    )


async def latest_samples(db: AsyncSession, *, target_id: int) -> list[MetricSample]:
    """The target's newest samples (one per check), read backwards along (target_id, at):
    LATEST_SAMPLES rows, however many a day holds."""
    rows = await db.execute(
        select(TargetMetricSample.at, TargetMetricSample.values)
        .where(TargetMetricSample.target_id == target_id)
        .order_by(TargetMetricSample.at.desc())
        .limit(LATEST_SAMPLES)
    )
    return [MetricSample(at, dict(values)) for at, values in rows]


async def target_detail(
    db: AsyncSession, *, team_id: int, collector_id: int, target_id: int, now: datetime
) -> TargetDetail:
    """The collector target's page: 6 queries (collector, target, incidents,
    availability, checks, samples); NotFound for another team's or a missing one, or a target
    of another collector."""
    collector = await collectors.get_collector(db, team_id=team_id, collector_id=collector_id)
    target = await collectors.get_target(
        db, team_id=team_id, collector_id=collector.id, target_id=target_id
    )
    state = target_state(target, now)
    never_checked = target.last_ping_at is None and target.consecutive_failure_count == 0
    incidents, entered, shown = await _record(
        db, "collector_target_id", target, state, now, paused_at=None, never_checked=never_checked
    )
    return TargetDetail(
        target=target,
        collector=collector,
        state=state,
        since=entered,
        availability=shown,
        checks=await latest_checks(db, subject_type="collector_target", subject_id=target.id),
        samples=await latest_samples(db, target_id=target.id),
        incidents=incidents,
    )
