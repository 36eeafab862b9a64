"""What was recorded about the items resources show: history rollups plus incidents.

Incidents shorter than the page's min_incident_length are left out (an open one counts
once it has lasted that long). Pages whose every day in the window starts at a UTC midnight read daily rollups; others
read hourly rollups and build their local days from them.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from sqlalchemy import Select, bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.groups.group_kinds import SHOWN_GROUPS
from watchpost.history.periods import Granularity, bucket_start
from watchpost.history.reading import Bucket, History, buckets_during, histories, observed_totals
from watchpost.incidents.models import Incident as IncidentRow
from watchpost.incoming.models import live_state
from watchpost.maintenance_windows import in_maintenance
from watchpost.status_pages.availability import (
    Cell,
    Earlier,
    Incident,
    Marking,
    Record,
    Summary,
    combine,
    earlier_from_cells,
    observed_span,
    summarize_in,
    unobserved,
)
from watchpost.status_pages.models import StatusPage
from watchpost.status_pages.resource_rows import ResourceRow
from watchpost.status_pages.resource_types import MANUAL
from watchpost.status_pages.windows import Window, make_window, merge_intervals
from watchpost.timezones import zone_of

ITEMS: Final[dict[str, str]] = {
    "Monitor": "monitor",
    "Heartbeat": "heartbeat",
    "IncomingWebhook": "incoming_webhook",
}
"""resource_type → history subject_type, for single items (groups: SHOWN_GROUPS)."""
INCIDENT_COLUMNS: Final[dict[str, str]] = {
    "monitor": "monitor_id",
    "heartbeat": "heartbeat_id",
    "collector_target": "collector_target_id",
    "incoming_webhook": "incoming_webhook_id",
}
_TOKEN_ATTRS = ("value", "item_id", "name", "email")

Member = tuple[str, int, bool, str | None]
"""(subject_type, subject_id, paused, its live state now: see LIVE_STATES)."""


def _heartbeat_now(heartbeat: Any, now: datetime) -> str | None:
    if heartbeat.paused or heartbeat.status not in ("up", "down"):
        return None
    return "maintenance" if in_maintenance(heartbeat, now) else str(heartbeat.status)


LIVE_STATES: Final[dict[str, Callable[[Any, datetime], str | None]]] = {
    "heartbeat": _heartbeat_now,
    "incoming_webhook": live_state,
}
"""subject_type → the state an item of it is in now, from its own row. The engine records
heartbeats in the check history only once a minute (pings stay one statement), so until it
does, a heartbeat's current status comes from the heartbeat itself: a status page shows a
heartbeat that is up as operational at once, not as not_monitored. Monitors and targets are
recorded in the same transaction as the check that changes them and need no such rule. The
days' history still counts only recorded time."""


LIVE_COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "heartbeat": (
        "status",
        "maintenance_from",
        "maintenance_to",
        "maintenance_timezone",
        "maintenance_days",
    ),
    "incoming_webhook": ("sample_body",),
}
"""subject_type → the columns its LIVE_STATES function reads."""


def item_columns(model: Any, names: Iterable[str], subject_type: str | None) -> list[Any]:
    """The columns of an item that summaries and rendering read, selected as plain rows
    (attributes by name, as the ORM object had them): its id, `names`, paused (if it has
    it) and what its live state needs."""
    wanted = ["id", *names, *(["paused"] if hasattr(model, "paused") else [])]
    wanted += LIVE_COLUMNS.get(subject_type or "", ())
    return [getattr(model, name) for name in dict.fromkeys(wanted)]


async def plain_rows(session: AsyncSession, stmt: Select[Any], params: dict[str, Any]) -> Any:
    """stmt's rows, on the session's connection: the session's own execute wraps every row
    of a plain select in ORM result handling (the callers read what no pending change of
    theirs touches)."""
    connection = await session.connection()
    return await connection.execute(stmt, params)


def _tokens(values: Any) -> tuple[str, ...]:
    """An incident's metadata values as the strings a rule's tokens are matched against."""
    if not isinstance(values, list):
        values = [values]
    tokens: list[str] = []
    for value in values:
        if isinstance(value, dict):
            tokens += [str(value[a]) for a in _TOKEN_ATTRS if value.get(a) is not None]
        elif value is not None:
            tokens.append(str(value))
    return tuple(tokens)


def _incident(started_at: datetime, resolved_at: datetime | None, raw: Any) -> Incident:
    metadata = {str(key): _tokens(values) for key, values in (raw or {}).items()}
    return Incident(started_at, resolved_at, metadata)


def _rule_tokens(rule: dict[str, Any] | None) -> tuple[str, frozenset[str]] | None:
    """A stored rule as (key, the strings an incident's metadata value may match)."""
    if rule is None:
        return None
    tokens: set[str] = set()
    for value in rule["values"]:
        for attr in ("value", "item_id", "name", "email"):
            if value.get(attr) is not None:
                tokens.add(str(value[attr]))
    return rule["key"], frozenset(tokens)


def marking(resource: ResourceRow) -> Marking:
    rules = (resource.mark_as_down_metadata_rule, resource.mark_as_degraded_metadata_rule)
    if rules == (None, None):
        return _plain_marking(resource.mark_as_down_for, resource.mark_as_degraded_for)
    return Marking(
        down_for=resource.mark_as_down_for,
        down_rule=_rule_tokens(resource.mark_as_down_metadata_rule),
        degraded_for=resource.mark_as_degraded_for,
        degraded_rule=_rule_tokens(resource.mark_as_degraded_metadata_rule),
    )


@functools.cache
def _incidents_of(subject_type: str) -> Select[Any]:
    """The incidents of subjects (bound: ids) within [since, now), as columns: a page of
    items may read tens of thousands of incidents."""
    column = getattr(IncidentRow, INCIDENT_COLUMNS[subject_type])
    return (
        select(column, IncidentRow.started_at, IncidentRow.resolved_at, IncidentRow.metadata_)
        .where(
            column.in_(bindparam("ids", expanding=True)),
            IncidentRow.started_at < bindparam("now"),
            or_(IncidentRow.resolved_at.is_(None), IncidentRow.resolved_at > bindparam("since")),
        )
        .order_by(IncidentRow.id)
    )


@functools.cache
def _plain_marking(down_for: str, degraded_for: str) -> Marking:
    return Marking(down_for=down_for, degraded_for=degraded_for)


async def _incidents(
    session: AsyncSession, subject_type: str, ids: Sequence[int], *, since: datetime, now: datetime
) -> dict[int, list[Incident]]:
    found: dict[int, list[Incident]] = defaultdict(list)
    if not ids:
        return found
    params = {"ids": ids, "since": since, "now": now}
    rows = await plain_rows(session, _incidents_of(subject_type), params)
    for subject_id, started_at, resolved_at, metadata in rows:
        found[subject_id].append(_incident(started_at, resolved_at, metadata))
    return found


def _lasts(incident: Incident, page: StatusPage, now: datetime) -> bool:
    """Whether the incident lasted (or has lasted so far) the page's min_incident_length."""
    end = min(incident.end or now, now)
    return (end - incident.start).total_seconds() >= (page.min_incident_length or 0)


def _cell(bucket: Bucket) -> Cell:
    return Cell(bucket.start, bucket.end, bucket.observed_s, bucket.maintenance_s)


@dataclass(frozen=True)
class _Seen:
    """One subject's rollups of the shown days, its incidents and its earlier totals."""

    history: History
    incidents: list[Incident]
    earlier: Earlier | None

    def summary(self, rules: Marking, window: Window, *, paused: bool, live: str | None) -> Summary:
        """summarize_in of its record. Never observed, without incidents and not live, a
        subject has nothing to compute (nor does its marking matter)."""
        if self.history.last_at is None and not self.incidents and live is None:
            return unobserved(window)
        return summarize_in(_record(self, paused=paused, live=live), rules, window)


def _record(seen: _Seen, *, paused: bool, live: str | None) -> Record:
    history = seen.history
    state = history.state if history.state is not None else live
    return Record(
        cells=[_cell(b) for b in history.buckets],
        incidents=seen.incidents,
        observed_now=state is not None,
        maintenance_now=state == "maintenance",
        paused=paused,
        earlier=seen.earlier,
    )


async def _earlier(
    session: AsyncSession,
    subject_type: str,
    seen: dict[int, History],
    incidents: dict[int, list[Incident]],
    *,
    window: Window,
    granularity: Granularity,
) -> dict[int, Earlier]:
    """Each subject's totals over the window's days before those shown (see Earlier):
    observed and maintenance summed by the database, plus the standing span's part; and
    the rollups that its incidents overlap there, for downtime. A subject never observed
    has no rollups (history/reading.histories): nothing is read for it."""
    start, end = window.start, window.shown_start
    ids = sorted(subject_id for subject_id, history in seen.items() if history.last_at is not None)
    sums = await observed_totals(
        session, subject_type=subject_type, subject_ids=ids, start=start, end=end
    )
    spans = [
        (subject_id, low, high)
        for subject_id in ids
        for low, high in merge_intervals(
            [(max(i.start, start), min(i.end or window.now, end)) for i in incidents[subject_id]]
        )
        if low < high
    ]
    cells = await buckets_during(
        session, subject_type=subject_type, spans=spans, now=window.now, granularity=granularity
    )
    found: dict[int, Earlier] = {}
    for subject_id in ids:
        observed, maintenance = sums[subject_id]
        standing = seen[subject_id].standing
        if standing is not None:
            extra = earlier_from_cells([_cell(standing)], window)
            observed, maintenance = observed + extra.observed, maintenance + extra.maintenance
        kept = [_cell(b) for b in cells.get(subject_id, [])]
        found[subject_id] = Earlier(observed, maintenance, kept)
    return {subject_id: found.get(subject_id, _NOTHING_EARLIER) for subject_id in seen}


_NOTHING_EARLIER: Final = Earlier()


def _member(subject_type: str, item: Any, now: datetime) -> Member:
    live = LIVE_STATES.get(subject_type)
    return (subject_type, item.id, bool(item.paused), live(item, now) if live else None)


@functools.cache
def _members_of(group_type: str) -> Select[Any]:
    """The members of groups of a shown type (bound: ids, the groups)."""
    kind = SHOWN_GROUPS[group_type]
    columns = item_columns(kind.member_model, (kind.member_key.key,), kind.member_type)
    return select(*columns).where(kind.member_key.in_(bindparam("ids", expanding=True)))


async def _members(
    session: AsyncSession,
    resources: Sequence[ResourceRow],
    targets: dict[Any, Any],
    now: datetime,
) -> dict[int, list[Member]]:
    """resource id → the subjects it shows (one for an item, the members for a group)."""
    members: dict[int, list[Member]] = {}
    groups: dict[str, set[int]] = defaultdict(set)
    for res in resources:
        target = targets.get((res.resource_type, res.resource_id))
        if target is None:
            continue
        if res.resource_type in ITEMS:
            members[res.id] = [_member(ITEMS[res.resource_type], target, now)]
        elif res.resource_type in SHOWN_GROUPS:
            groups[res.resource_type].add(target.id)
    for group_type, group_ids in groups.items():
        kind = SHOWN_GROUPS[group_type]
        key = kind.member_key
        by_group: dict[int, list[Member]] = defaultdict(list)
        for item in await plain_rows(session, _members_of(group_type), {"ids": sorted(group_ids)}):
            by_group[getattr(item, key.key)].append(_member(kind.member_type, item, now))
        for res in resources:
            if res.resource_type == group_type and res.resource_id is not None:
                members[res.id] = by_group.get(res.resource_id, [])
    return members


async def summaries(
    session: AsyncSession,
    resources: Sequence[ResourceRow],
    targets: dict[Any, Any],
    *,
    page: StatusPage,
    now: datetime,
    days: int | None = None,
    shown: int | None = None,
) -> dict[int, Summary]:
    """resource id → its status, availability and status_history.

    days: the window (default the page's history); shown: how many of its most recent days
    get a status_history entry (default all). The days before those count in the
    availability as totals only, summed by the database.
    """
    days = days or page.history
    window = make_window(
        now=now, days=days, tz=zone_of(page.timezone) or ZoneInfo("UTC"), shown=shown
    )
    since = window.start
    granularity: Granularity = "hour"
    if window.utc_midnights:
        granularity = "day"

    # The earlier days' totals come from the database unless they end within the current
    # hour (its rollup is still growing): then every cell is read, as for a single GET.
    summed = window.first_shown > 0 and window.shown_start <= bucket_start(now, "hour")
    members = await _members(session, resources, targets, now)
    wanted: dict[str, set[int]] = defaultdict(set)
    for subjects in members.values():
        for subject_type, subject_id, _, _ in subjects:
            wanted[subject_type].add(subject_id)
    records: dict[tuple[str, int], _Seen] = {}
    for subject_type, ids in wanted.items():
        ordered = sorted(ids)
        seen = await histories(
            session,
            subject_type=subject_type,
            subject_ids=ordered,
            since=window.shown_start if summed else since,
            now=now,
            granularity=granularity,
        )
        incidents = await _incidents(session, subject_type, ordered, since=since, now=now)
        shown_incidents = {
            subject_id: [i for i in incidents.get(subject_id, []) if _lasts(i, page, now)]
            for subject_id in ordered
        }
        earlier: dict[int, Earlier] = {}
        if summed:
            earlier = await _earlier(
                session,
                subject_type,
                seen,
                shown_incidents,
                window=window,
                granularity=granularity,
            )
        for subject_id in ordered:
            records[(subject_type, subject_id)] = _Seen(
                seen[subject_id], shown_incidents[subject_id], earlier.get(subject_id)
            )

    found: dict[int, Summary] = {}
    for res in resources:
        rules = marking(res)
        target = targets.get((res.resource_type, res.resource_id))
        if res.resource_type == MANUAL:
            record = Record(cells=[observed_span(res.created, now)], observed_now=True)
            found[res.id] = summarize_in(record, rules, window)
        elif res.id in members and res.resource_type in SHOWN_GROUPS:
            parts = [
                records[(kind, ident)].summary(rules, window, paused=paused, live=live)
                for kind, ident, paused, live in members[res.id]
            ]
            if not parts:
                parts = [summarize_in(Record(), rules, window)]
            paused_group = bool(getattr(target, "paused", False))
            found[res.id] = combine(parts, days=window.shown, paused=paused_group)
        elif res.id in members:
            ((kind, ident, paused, live),) = members[res.id]
            found[res.id] = records[(kind, ident)].summary(rules, window, paused=paused, live=live)
        else:
            record = Record(paused=bool(getattr(target, "paused", False)))
            found[res.id] = summarize_in(record, rules, window)
    return found
