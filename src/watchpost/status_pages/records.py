"""What was recorded about the items resources show: history rollups plus incidents.

Incidents shorter than the page's min_incident_length are left out (an open one counts
once it has lasted that long). Pages whose every day in the window starts at a UTC midnight
read daily rollups; others read hourly rollups and build their local days from them.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from sqlalchemy import Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.groups.group_kinds import SHOWN_GROUPS
from watchpost.history.periods import Granularity, bucket_start
from watchpost.history.reading import History, buckets_during, histories, observed_totals
from watchpost.incoming.models import live_state
from watchpost.maintenance_windows import MAINTENANCE_COLUMNS, in_maintenance
from watchpost.monitors.confirmation import degraded_now
from watchpost.status_pages.availability import (
    Earlier,
    Incident,
    Marking,
    Prefix,
    Record,
    Summary,
    combine,
    observed_span,
    summarize_after,
    summarize_in,
    unobserved,
)
from watchpost.status_pages.incident_reads import plain_rows as plain_rows
from watchpost.status_pages.incident_reads import read_incidents
from watchpost.status_pages.kept import Need, Recent, cell_of, prefixes_of, recent_cells
from watchpost.status_pages.models import StatusPage
from watchpost.status_pages.resource_rows import ResourceRow
from watchpost.status_pages.resource_types import MANUAL
from watchpost.status_pages.tallies import earlier_from_cells
from watchpost.status_pages.windows import Window, make_window, merge_intervals
from watchpost.timezones import zone_of

ITEMS: Final[dict[str, str]] = {
    "Monitor": "monitor",
    "Heartbeat": "heartbeat",
    "IncomingWebhook": "incoming_webhook",
}
"""resource_type → history subject_type, for single items (groups: SHOWN_GROUPS)."""
Member = tuple[str, int, bool, str | None, datetime | None]
"""(subject_type, subject_id, paused, its live state now (see LIVE_STATES), created_at)."""


def _heartbeat_now(heartbeat: Any, now: datetime) -> str | None:
    if heartbeat.paused or heartbeat.status not in ("up", "down"):
        return None
    return "maintenance" if in_maintenance(heartbeat, now) else str(heartbeat.status)


LIVE_STATES: Final[dict[str, Callable[[Any, datetime], str | None]]] = {
    "heartbeat": _heartbeat_now,
    "monitor": degraded_now,
    "incoming_webhook": live_state,
}
"""subject_type → the state an item of it is in now, from its own row. The engine records
heartbeats in the check history only once a minute (pings stay one statement), so until it
does, a heartbeat's current status comes from the heartbeat itself: a status page shows a
heartbeat that is up as operational at once, not as not_monitored. Monitors and targets are
recorded with the check that changes them; a monitor's row adds only whether it is degraded.
The days' history still counts only recorded time."""


LIVE_COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "heartbeat": ("status", *MAINTENANCE_COLUMNS),
    "incoming_webhook": ("sample_body",),
    "monitor": ("status", "degraded_since"),
}
"""subject_type → the columns its LIVE_STATES function reads."""


def item_columns(model: Any, names: Iterable[str], subject_type: str | None) -> list[Any]:
    """The columns of an item that summaries and rendering read, selected as plain rows
    (attributes by name, as the ORM object had them): its id, `names`, paused and
    created_at (if it has them) and what its live state needs."""
    wanted = ["id", *names, *(["paused"] if hasattr(model, "paused") else [])]
    wanted += ["created_at"] if hasattr(model, "created_at") else []
    wanted += LIVE_COLUMNS.get(subject_type or "", ())
    return [getattr(model, name) for name in dict.fromkeys(wanted)]


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
def _plain_marking(down_for: str, degraded_for: str) -> Marking:
    return Marking(down_for=down_for, degraded_for=degraded_for)


@dataclass(frozen=True)
class _Seen:
    """One subject's rollups of the shown days, its incidents and its earlier totals."""

    history: History
    incidents: list[Incident]
    earlier: Earlier | None

    def summary(
        self,
        rules: Marking,
        window: Window,
        *,
        paused: bool,
        live: str | None,
        prefix: Prefix | None = None,
    ) -> Summary:
        """summarize_in of its record (summarize_after when its first cells are summed up in
        `prefix`, its history holding only the others).
        Never observed, without incidents and not live, a subject has nothing to compute
        (nor does its marking matter)."""
        if self.history.last_at is None and not self.incidents and live is None:
            return unobserved(window)
        record = _record(self, paused=paused, live=live)
        if prefix is not None:
            return summarize_after(record, rules, window, prefix)
        return summarize_in(record, rules, window)


def _record(seen: _Seen, *, paused: bool, live: str | None) -> Record:
    history = seen.history
    state = history.state if history.state is not None else live
    return Record(
        cells=[cell_of(b) for b in history.buckets],
        incidents=seen.incidents,
        observed_now=state is not None,
        maintenance_now=state == "maintenance",
        degraded_now=live == "degraded",
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
            extra = earlier_from_cells([cell_of(standing)], window)
            observed, maintenance = observed + extra.observed, maintenance + extra.maintenance
        kept = [cell_of(b) for b in cells.get(subject_id, [])]
        found[subject_id] = Earlier(observed, maintenance, kept)
    return {subject_id: found.get(subject_id, _NOTHING_EARLIER) for subject_id in seen}


_NOTHING_EARLIER: Final = Earlier()


def _member(subject_type: str, item: Any, now: datetime) -> Member:
    live = LIVE_STATES.get(subject_type)
    state = live(item, now) if live else None
    return (subject_type, item.id, bool(item.paused), state, getattr(item, "created_at", None))


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
    keep_tallies: bool = False,
) -> dict[int, Summary]:
    """resource id → its status, availability and status_history.

    days: the window (default the page's history); shown: how many of its most recent days
    get a status_history entry (default all). The days before those count in the
    availability as totals only, summed by the database.

    keep_tallies (every day shown): each subject's tally of its rollups that ended before its
    latest observation's hour is kept in this process between calls (kept.py), so that a
    call reads a few rollups per subject and adds only those: the same result as without,
    to the last bit. So are the incidents read, while unchanged (incident_reads.py).
    """
    days = days or page.history
    zone = zone_of(page.timezone) or ZoneInfo("UTC")
    window = make_window(now=now, days=days, tz=zone, shown=shown)
    split = keep_tallies and window.first_shown == 0
    hour = bucket_start(now, "hour")
    since = window.start
    granularity: Granularity = "day" if window.utc_midnights else "hour"

    # The earlier days' totals come from the database unless they end within the current
    # hour (its rollup is still growing): then every cell is read, as for a single GET.
    summed = window.first_shown > 0 and window.shown_start <= bucket_start(now, "hour")
    members = await _members(session, resources, targets, now)
    with_metadata = any(
        res.mark_as_down_metadata_rule is not None or res.mark_as_degraded_metadata_rule is not None
        for res in resources
    )
    wanted: dict[str, set[int]] = defaultdict(set)
    for subjects in members.values():
        for subject_type, subject_id, *_ in subjects:
            wanted[subject_type].add(subject_id)
    records: dict[tuple[str, int], _Seen] = {}
    recents: dict[tuple[str, int], Recent] = {}
    for subject_type, ids in wanted.items():
        ordered = sorted(ids)
        if split:
            recent = await recent_cells(
                session, subject_type, ordered, window=window, granularity=granularity, hour=hour
            )
            recents.update(((subject_type, ident), found) for ident, found in recent.items())
            seen = {ident: found.history for ident, found in recent.items()}
        else:
            seen = await histories(
                session,
                subject_type=subject_type,
                subject_ids=ordered,
                since=window.shown_start if summed else since,
                now=now,
                granularity=granularity,
            )
        shown_incidents = await read_incidents(
            session,
            subject_type,
            ordered,
            since=since,
            now=now,
            with_metadata=with_metadata,
            min_length=page.min_incident_length or 0,
            reuse=keep_tallies,
        )
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
            counted = shown_incidents.get(subject_id, [])
            records[(subject_type, subject_id)] = _Seen(
                seen[subject_id], counted, earlier.get(subject_id)
            )

    prefixes: dict[Need, Prefix] = {}
    if split:
        needs = {
            (kind, ident, marking(res))
            for res in resources
            for kind, ident, *_ in members.get(res.id, [])
            if records[(kind, ident)].history.last_at is not None
        }
        prefixes, after = await prefixes_of(
            session,
            needs,
            {key: seen.incidents for key, seen in records.items()},
            recents,
            born={
                (kind, ident): born for found in members.values() for kind, ident, *_, born in found
            },
            window=window,
            granularity=granularity,
            zone=str(zone),
            hour=hour,
        )
        for key, history in after.items():
            records[key] = _Seen(history, records[key].incidents, records[key].earlier)

    found: dict[int, Summary] = {}
    for res in resources:
        rules = marking(res)
        target = targets.get((res.resource_type, res.resource_id))
        if res.resource_type == MANUAL:
            record = Record(cells=[observed_span(res.created, now)], observed_now=True)
            found[res.id] = summarize_in(record, rules, window)
        elif res.id in members and res.resource_type in SHOWN_GROUPS:
            parts = [
                records[(kind, ident)].summary(
                    rules,
                    window,
                    paused=paused,
                    live=live,
                    prefix=prefixes.get((kind, ident, rules)),
                )
                for kind, ident, paused, live, _ in members[res.id]
            ]
            if not parts:
                parts = [summarize_in(Record(), rules, window)]
            paused_group = bool(getattr(target, "paused", False))
            found[res.id] = combine(parts, days=window.shown, paused=paused_group)
        elif res.id in members:
            ((kind, ident, paused, live, _),) = members[res.id]
            found[res.id] = records[(kind, ident)].summary(
                rules, window, paused=paused, live=live, prefix=prefixes.get((kind, ident, rules))
            )
        else:
            record = Record(paused=bool(getattr(target, "paused", False)))
            found[res.id] = summarize_in(record, rules, window)
    return found
