"""What a visitor of a status page sees, as plain values: the page's sections and resources
with their status, availability and days, the overall state, and the status reports.

Built from what the engine already keeps, through the status page API's own computation
(status_pages.records.summaries over the history rollups, report_states.with_reports for
open reports, min_incident_length applied there), never from raw check results. Response
times and the intraday bars come from the history rollups' counters (one query per subject
type and granularity). Templates (templates/) and the other public parts (feeds, JSON,
badges) read these values; nothing here knows HTML.

API:
    view = await page_view(session, page, now)     # PageView (view.names: id -> name)
    names = await resource_names(session, page)     # the names alone, no status computed
    overall_state(statuses)                         # the page's state name
    page_zone(page)                                 # the page's ZoneInfo (UTC if unknown)
Reports: report_view.py.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cached_property
from typing import Any, Final
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.groups.group_kinds import SHOWN_GROUPS
from watchpost.history.models import CheckRollup
from watchpost.history.periods import bucket_start
from watchpost.public_pages.page_data import read_page
from watchpost.public_pages.page_data import resource_names as resource_names
from watchpost.status_pages.availability import (
    DEGRADED,
    DOWNTIME,
    MAINTENANCE,
    NOT_MONITORED,
    OPERATIONAL,
)
from watchpost.status_pages.models import StatusPage
from watchpost.status_pages.records import ITEMS
from watchpost.status_pages.resource_rows import ResourceRow
from watchpost.timezones import zone_of

# The page's overall state (Statuspage's indicator in brackets: the JSON side maps them).
STATE_OPERATIONAL: Final = "operational"  # none
STATE_DEGRADED: Final = "degraded"  # minor
STATE_PARTIAL: Final = "partial_outage"  # major
STATE_MAJOR: Final = "major_outage"  # critical
STATE_MAINTENANCE: Final = "maintenance"  # maintenance
STATES: Final = (STATE_OPERATIONAL, STATE_DEGRADED, STATE_PARTIAL, STATE_MAJOR, STATE_MAINTENANCE)

CHART_WIDGETS: Final = frozenset({"response_times", "chart_only"})
INTRADAY_HOURS: Final = 24


def overall_state(statuses: Iterable[str]) -> str:
    """The page's state from its resources' statuses (not_monitored ones left out):
    major_outage when every one is down, partial_outage when some are, else degraded,
    maintenance or operational, the worst present."""
    seen = [status for status in statuses if status != NOT_MONITORED]
    if any(status == DOWNTIME for status in seen):
        return STATE_MAJOR if all(status == DOWNTIME for status in seen) else STATE_PARTIAL
    if DEGRADED in seen:
        return STATE_DEGRADED
    if MAINTENANCE in seen:
        return STATE_MAINTENANCE
    return STATE_OPERATIONAL


@dataclass(frozen=True)
class Day:
    """One local day of a resource's history."""

    day: date
    status: str
    """not_monitored, operational, degraded, downtime or maintenance."""
    downtime_s: int
    maintenance_s: int


@dataclass(frozen=True)
class Hour:
    """One hour of the intraday bars (from the hourly rollups' check counters)."""

    start: datetime
    checks: int
    failures: int

    @property
    def status(self) -> str:
        if self.checks == 0:
            return NOT_MONITORED
        return DOWNTIME if self.failures else OPERATIONAL


@dataclass(frozen=True)
class Point:
    """Response times of one day (ms): average, fastest, slowest."""

    day: date
    avg_ms: float
    min_ms: float
    max_ms: float


@dataclass(frozen=True)
class ResourceView:
    id: int
    name: str
    explanation: str
    widget: str
    resource_type: str
    status: str
    availability: float | None
    """Over the page's history window; None when nothing was observed in it."""
    history: Sequence[dict[str, Any]]
    """The status_history entries of the page's days (read only: shared between requests)."""
    hours: list[Hour] = field(default_factory=list)
    """intraday_history of an item or a group (its members' checks summed): the last 24
    hours."""
    points: list[Point] = field(default_factory=list)
    """response_times / chart_only of a monitor: one point per day with checks."""

    @cached_property
    def days(self) -> list[Day]:
        """The history as Days."""
        return [
            Day(
                date.fromisoformat(entry["day"]),
                entry["status"],
                int(entry["downtime_duration"]),
                int(entry["maintenance_duration"]),
            )
            for entry in self.history
        ]

    @cached_property
    def monitored_days(self) -> int:
        return sum(1 for entry in self.history if entry["status"] != NOT_MONITORED)


@dataclass(frozen=True)
class SectionView:
    id: int
    name: str
    resources: list[ResourceView]


@dataclass(frozen=True)
class PageView:
    page: StatusPage
    tz: ZoneInfo
    now: datetime
    state: str
    sections: list[SectionView]

    @property
    def resources_by_id(self) -> dict[int, ResourceView]:
        return {r.id: r for section in self.sections for r in section.resources}

    @property
    def names(self) -> dict[int, str]:
        """Resource id → the name shown (what report_view's functions take)."""
        return {r.id: r.name for section in self.sections for r in section.resources}


def page_zone(page: StatusPage) -> ZoneInfo:
    return zone_of(page.timezone) or ZoneInfo("UTC")


def _subject(row: ResourceRow) -> tuple[str, int] | None:
    """The history subject of a single item (groups and manual items have none)."""
    kind = ITEMS.get(row.resource_type)
    return (kind, row.resource_id) if kind is not None and row.resource_id is not None else None


_ROLLUPS: Final = (
    select(
        CheckRollup.subject_id,
        CheckRollup.period_start,
        CheckRollup.checks,
        CheckRollup.failures,
        CheckRollup.latency_sum,
        CheckRollup.latency_count,
        CheckRollup.latency_min,
        CheckRollup.latency_max,
    )
    .where(
        CheckRollup.subject_type == bindparam("kind"),
        CheckRollup.subject_id.in_(bindparam("ids", expanding=True)),
        CheckRollup.granularity == bindparam("granularity"),
        CheckRollup.period_start >= bindparam("since"),
        CheckRollup.period_start < bindparam("now"),
    )
    .order_by(CheckRollup.subject_id, CheckRollup.period_start)
)


async def _rollups(
    session: AsyncSession,
    wanted: dict[str, set[int]],
    *,
    granularity: str,
    since: datetime,
    now: datetime,
) -> dict[tuple[str, int], list[tuple[datetime, int, int, float, int, float | None, float | None]]]:
    found: dict[
        tuple[str, int], list[tuple[datetime, int, int, float, int, float | None, float | None]]
    ]
    found = defaultdict(list)
    for kind, ids in wanted.items():
        if not ids:
            continue
        params = {"kind": kind, "ids": sorted(ids), "granularity": granularity}
        connection = await session.connection()
        rows = await connection.execute(_ROLLUPS, {**params, "since": since, "now": now})
        for subject_id, start, *rest in rows:
            found[(kind, subject_id)].append((start, *rest))
    return found


def _hours(
    rows: Sequence[tuple[datetime, int, int, float, int, float | None, float | None]], now: datetime
) -> list[Hour]:
    """The last 24 hours from hourly rollups (of one subject, or of a group's members: their
    checks and failures summed per hour)."""
    first = bucket_start(now, "hour") - timedelta(hours=INTRADAY_HOURS - 1)
    checks: dict[datetime, int] = defaultdict(int)
    failures: dict[datetime, int] = defaultdict(int)
    for row in rows:
        checks[row[0]] += row[1]
        failures[row[0]] += row[2]
    hours = []
    for offset in range(INTRADAY_HOURS):
        start = first + timedelta(hours=offset)
        hours.append(Hour(start, checks.get(start, 0), failures.get(start, 0)))
    return hours


async def _intraday_subjects(
    session: AsyncSession, rows: Sequence[ResourceRow]
) -> dict[int, list[tuple[str, int]]]:
    """Resource id → the history subjects of its intraday bars: the item itself, or a
    group's members (one query per group kind)."""
    found: dict[int, list[tuple[str, int]]] = {}
    groups: dict[str, set[int]] = defaultdict(set)
    for row in rows:
        if row.widget_type != "intraday_history":
            continue
        subject = _subject(row)
        if subject is not None:
            found[row.id] = [subject]
        elif row.resource_type in SHOWN_GROUPS and row.resource_id is not None:
            groups[row.resource_type].add(row.resource_id)
    for group_type, ids in groups.items():
        kind = SHOWN_GROUPS[group_type]
        stmt = select(kind.member_model.id, kind.member_key).where(kind.member_key.in_(ids))
        members: dict[int, list[tuple[str, int]]] = defaultdict(list)
        for member_id, group_id in await session.execute(stmt):
            members[group_id].append((kind.member_type, member_id))
        for row in rows:
            if row.widget_type == "intraday_history" and row.resource_type == group_type:
                found[row.id] = members.get(row.resource_id or 0, [])
    return found


def _points(
    rows: Sequence[tuple[datetime, int, int, float, int, float | None, float | None]], tz: ZoneInfo
) -> list[Point]:
    points = []
    for start, _checks, _failures, total, count, low, high in rows:
        if count:
            average = total / count
            points.append(
                Point(
                    start.astimezone(tz).date(),
                    average,
                    low if low is not None else average,
                    high if high is not None else average,
                )
            )
    return points


async def page_view(session: AsyncSession, page: StatusPage, now: datetime) -> PageView:
    """Everything the page's main view shows."""
    tz = page_zone(page)
    data = await read_page(session, page, now)
    rows = data.rows

    shown_hourly = await _intraday_subjects(session, rows)
    intraday: dict[str, set[int]] = defaultdict(set)
    for subjects in shown_hourly.values():
        for kind, ident in subjects:
            intraday[kind].add(ident)
    charted: dict[str, set[int]] = defaultdict(set)
    for row in rows:
        subject = _subject(row)
        if subject is not None and row.widget_type in CHART_WIDGETS:
            charted[subject[0]].add(subject[1])
    hourly = await _rollups(
        session,
        intraday,
        granularity="hour",
        since=bucket_start(now, "hour") - timedelta(hours=INTRADAY_HOURS - 1),
        now=now,
    )
    daily = await _rollups(
        session,
        charted,
        granularity="day",
        since=bucket_start(now - timedelta(days=page.history - 1), "day"),
        now=now,
    )

    by_section: dict[int, list[ResourceView]] = defaultdict(list)
    for row in rows:
        summary = data.found[row.id]
        subject = _subject(row)
        hours: list[Hour] = []
        points: list[Point] = []
        if row.id in shown_hourly:
            found = [r for subject in shown_hourly[row.id] for r in hourly.get(subject, [])]
            hours = _hours(found, now)
        if subject is not None and row.widget_type in CHART_WIDGETS:
            points = _points(daily.get(subject, []), tz)
        by_section[row.status_page_section_id].append(
            ResourceView(
                id=row.id,
                name=data.name(row),
                explanation=row.explanation,
                widget=row.widget_type,
                resource_type=row.resource_type,
                status=summary.status,
                availability=summary.availability if summary.observed_s > 0 else None,
                history=summary.status_history,
                hours=hours,
                points=points,
            )
        )
    sections = [
        SectionView(section.id, section.name, by_section.get(section.id, []))
        for section in data.sections
    ]
    statuses = [r.status for section in sections for r in section.resources]
    return PageView(page, tz, now, overall_state(statuses), sections)
