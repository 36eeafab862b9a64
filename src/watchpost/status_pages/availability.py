"""Status, availability and day-by-day history of a status page resource.

The history package records, per monitored item, how many seconds of each hour (or UTC
day) were observed and how many of those were maintenance; `Record` carries those
`Cell`s plus the item's incidents. This module turns a record into what a status page
shows, applying the resource's mark_as_down_for / mark_as_degraded_for rules to each
incident:

- A cell's seconds are taken as spread evenly over it, so an hourly cell that straddles
  a local midnight (time zones with half-hour offsets) is shared in proportion.
- Downtime in a cell = time covered by a marking incident, capped by the cell's observed
  non-maintenance seconds: incident time while nothing was observed, or during
  maintenance, is not downtime. Degraded likewise, after downtime.
- A day with no observed time at all has status `not_monitored` (never `operational`)
  and zero durations. Days are calendar days in the page's time zone, oldest first,
  the last one being today (observed up to now).
- availability = (observed - maintenance - downtime) / (observed - maintenance) over the
  page's history window, rounded to 6 places: unobserved time counts neither way;
  1 when nothing was observed (always a number in [0, 1], as the specification types it;
  status_history's `not_monitored` days are what says nothing was observed).
- Day status: downtime if any downtime, else degraded, else maintenance, else operational.
- Current status: not_monitored when paused or not observed now; else downtime, degraded,
  maintenance (observed in maintenance now) or operational.
- Durations are whole seconds.
- Groups (`combine`): the worst member status (not_monitored members ignored unless all
  are); availability weighted by each member's counted time; a day's durations are the
  longest of any member's.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from watchpost.status_pages.tallies import Earlier as Earlier
from watchpost.status_pages.tallies import Tally, earlier_down, earlier_from_cells
from watchpost.status_pages.tallies import tally as tally_days
from watchpost.status_pages.windows import (
    Interval,
    Window,
    make_window,
    merge_intervals,
    subtract_intervals,
)

NOT_MONITORED: Final = "not_monitored"
OPERATIONAL: Final = "operational"
DOWNTIME: Final = "downtime"
DEGRADED: Final = "degraded"
MAINTENANCE: Final = "maintenance"
# Worst first: the page's aggregate_state is the worst status among its resources.
SEVERITY: Final[tuple[str, ...]] = (DOWNTIME, DEGRADED, MAINTENANCE, OPERATIONAL)


@dataclass(frozen=True)
class Cell:
    """Within [start, end), `observed` seconds were observed, `maintenance` of them in
    maintenance."""

    start: datetime
    end: datetime
    observed: float
    maintenance: float = 0.0


def observed_span(start: datetime, end: datetime) -> Cell:
    """A span observed throughout, outside maintenance."""
    return Cell(start, end, max((end - start).total_seconds(), 0.0))


@dataclass(frozen=True)
class Incident:
    start: datetime
    end: datetime | None = None
    metadata: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Incident metadata: key → values, matched against a rule's value tokens."""


@dataclass(frozen=True)
class Record:
    """What was recorded for one item over (at least) the window asked for."""

    cells: Sequence[Cell] = ()
    incidents: Sequence[Incident] = ()
    observed_now: bool = False
    maintenance_now: bool = False
    degraded_now: bool = False
    """Some of a monitor's locations fail now, too few for its confirmation rule."""
    paused: bool = False
    earlier: Earlier | None = None
    """Totals of the window's days before those shown; None: computed from `cells`."""


@dataclass(frozen=True)
class Marking:
    """When an incident makes the resource down or degraded (mark_as_*_for + rules)."""

    down_for: str = "any_incident"
    down_rule: tuple[str, frozenset[str]] | None = None
    degraded_for: str = "no_incident"
    degraded_rule: tuple[str, frozenset[str]] | None = None


@dataclass(frozen=True)
class Summary:
    status: str
    availability: float
    status_history: list[dict[str, Any]]
    observed_s: float = 0.0
    counted_s: float = 0.0
    """Observed seconds outside maintenance: availability's denominator."""
    down_s: float = 0.0


def _matches(mode: str, rule: tuple[str, frozenset[str]] | None, incident: Incident) -> bool:
    if mode == "any_incident":
        return True
    if mode != "incident_matching_metadata" or rule is None:
        return False
    key, tokens = rule
    return any(value in tokens for value in incident.metadata.get(key, ()))


def _closed(incidents: Iterable[Incident], now: datetime) -> list[Interval]:
    return merge_intervals((i.start, min(i.end or now, now)) for i in incidents)


def _covers(incidents: Iterable[Incident], now: datetime) -> bool:
    return any(i.start <= now and (i.end is None or i.end > now) for i in incidents)


def summarize(
    record: Record, marking: Marking, *, now: datetime, days: int, tz: ZoneInfo
) -> Summary:
    """The resource's current status, its availability and one entry per day of the window."""
    return summarize_in(record, marking, make_window(now=now, days=days, tz=tz))


def summarize_in(record: Record, marking: Marking, window: Window) -> Summary:
    """Status, availability over the whole window, and entries for its shown days.

    The shown days are computed cell by cell and day by day; the earlier days only as
    totals (record.earlier, or from record.cells when it is None), so that a list showing
    a few days of a long window costs what it shows.
    """
    down_incidents, degraded_incidents = _split(record, marking)
    if not record.cells:
        return _unobserved(record, down_incidents, degraded_incidents, window)
    down, degraded = _intervals(down_incidents, degraded_incidents, window.now)
    first, days = window.first_shown, len(window.days)
    tally = tally_days(record.cells, window, first, days, down, degraded)
    history = _entries(window.shown_day_texts, tally)
    return _totals(record, down_incidents, degraded_incidents, window, down, tally, history)


def _intervals(
    down_incidents: list[Incident], degraded_incidents: list[Incident], now: datetime
) -> tuple[list[Interval], list[Interval]]:
    down = _closed(down_incidents, now)
    return down, subtract_intervals(_closed(degraded_incidents, now), down)


def _entries(day_texts: Sequence[str], tally: Tally) -> list[dict[str, Any]]:
    seen, in_maintenance, in_downtime, in_degraded = tally
    history: list[dict[str, Any]] = []
    for at, text in enumerate(day_texts):
        downtime, maintenance = round(in_downtime[at]), round(in_maintenance[at])
        if seen[at] <= 0:
            status = NOT_MONITORED
        elif downtime > 0:
            status = DOWNTIME
        elif round(in_degraded[at]) > 0:
            status = DEGRADED
        elif maintenance > 0:
            status = MAINTENANCE
        else:
            status = OPERATIONAL
        history.append(
            {
                "day": text,
                "status": status,
                "downtime_duration": downtime,
                "maintenance_duration": maintenance,
            }
        )
    return history


def _totals(
    record: Record,
    down_incidents: list[Incident],
    degraded_incidents: list[Incident],
    window: Window,
    down: list[Interval],
    tally: Tally,
    history: list[dict[str, Any]],
) -> Summary:
    seen, in_maintenance, in_downtime, _ = tally
    earlier = record.earlier
    if earlier is None:
        earlier = earlier_from_cells(record.cells, window)
    observed = sum(seen)
    total_maintenance = sum(in_maintenance)
    total_down = sum(in_downtime)
    if window.first_shown > 0:
        observed += earlier.observed
        total_maintenance += earlier.maintenance
        total_down += earlier_down(earlier.cells, window, down)
    counted = max(observed - total_maintenance, 0.0)
    total_down = min(total_down, counted)
    return Summary(
        _current(record, down_incidents, degraded_incidents, window.now),
        _availability(counted, total_down),
        history,
        observed_s=observed,
        counted_s=counted,
        down_s=total_down,
    )


@dataclass(frozen=True)
class Prefix:
    """A record's tally after its first cells, those that end before a time the record's
    other cells start at or after (records.py: the current hour): with the same rollups and
    the same marked incidents it can no longer change, so records.py keeps it between
    requests. `entries`: the status_history entries of that tally, read only."""

    tally: Tally
    entries: list[dict[str, Any]]
    observed: bool
    """Whether the record had any cell in it."""


def prefix_of(
    cells: Sequence[Cell], incidents: Sequence[Incident], marking: Marking, window: Window
) -> Prefix:
    """The tally of the first cells of a record (every day of the window shown)."""
    down, degraded = _intervals(*_split(Record(incidents=incidents), marking), window.now)
    tally = tally_days(cells, window, 0, len(window.days), down, degraded)
    return Prefix(tally, _entries(window.shown_day_texts, tally), bool(cells))


def summarize_after(record: Record, marking: Marking, window: Window, prefix: Prefix) -> Summary:
    """summarize_in of a record whose first cells are summed up in `prefix` (prefix_of of
    the same incidents and marking) and whose other cells are record.cells: each day's
    numbers are added to in the same order, so the result is the same to the last bit.
    Only the days that record.cells reach get new entries."""
    down_incidents, degraded_incidents = _split(record, marking)
    if not record.cells and not prefix.observed:
        return _unobserved(record, down_incidents, degraded_incidents, window)
    days = len(window.days)
    if not record.cells:
        tally, history = prefix.tally, list(prefix.entries)
        down = _closed(down_incidents, window.now)
        return _totals(record, down_incidents, degraded_incidents, window, down, tally, history)
    down, degraded = _intervals(down_incidents, degraded_incidents, window.now)
    first = max(bisect_right(window.starts, min(c.start for c in record.cells)) - 1, 0)
    rest: Tally = (
        prefix.tally[0][first:],
        prefix.tally[1][first:],
        prefix.tally[2][first:],
        prefix.tally[3][first:],
    )
    tally = tally_days(record.cells, window, first, days, down, degraded, onto=rest)
    full: Tally = (
        prefix.tally[0][:first] + tally[0],
        prefix.tally[1][:first] + tally[1],
        prefix.tally[2][:first] + tally[2],
        prefix.tally[3][:first] + tally[3],
    )
    history = prefix.entries[:first] + _entries(window.shown_day_texts[first:], tally)
    return _totals(record, down_incidents, degraded_incidents, window, down, full, history)


def _unobserved(
    record: Record, down_incidents: list[Incident], degraded: list[Incident], window: Window
) -> Summary:
    """summarize_in for a record without cells: its shown days are all not_monitored (the
    window's shared entries, built once), its totals those of the earlier days alone."""
    observed = maintenance = down = 0.0
    earlier = record.earlier
    if window.first_shown > 0 and earlier is not None:
        observed, maintenance = earlier.observed, earlier.maintenance
        if down_incidents and earlier.cells:
            down = earlier_down(earlier.cells, window, _closed(down_incidents, window.now))
    counted = max(observed - maintenance, 0.0)
    down = min(down, counted)
    return Summary(
        _current(record, down_incidents, degraded, window.now),
        _availability(counted, down),
        list(window.unobserved_days),
        observed_s=observed,
        counted_s=counted,
        down_s=down,
    )


def unobserved(window: Window) -> Summary:
    """The summary of an item never observed and without incidents: summarize_in of its
    record, whatever its marking (not_monitored now and every day, availability 1)."""
    return Summary(NOT_MONITORED, 1.0, window.unobserved_days)


def _availability(counted: float, down: float) -> float:
    """In [0, 1]; 1 when no time counts (nothing observed, or only maintenance)."""
    if counted > 0:
        return min(max(round((counted - down) / counted, 6), 0.0), 1.0)
    return 1.0


def combine(members: Sequence[Summary], *, days: int, paused: bool = False) -> Summary:
    """A group's summary from its members' (see the module notes)."""
    history: list[dict[str, Any]] = []
    for index in range(days):
        entries = [member.status_history[index] for member in members]
        day = entries[0]["day"] if entries else ""
        history.append(
            {
                "day": day,
                "status": _worst(entry["status"] for entry in entries),
                "downtime_duration": max((e["downtime_duration"] for e in entries), default=0),
                "maintenance_duration": max(
                    (e["maintenance_duration"] for e in entries), default=0
                ),
            }
        )
    observed = sum(member.observed_s for member in members)
    counted = sum(member.counted_s for member in members)
    down = sum(member.down_s for member in members)
    status = NOT_MONITORED if paused else _worst(member.status for member in members)
    return Summary(
        status,
        _availability(counted, down),
        history,
        observed_s=observed,
        counted_s=counted,
        down_s=down,
    )


def _worst(statuses: Iterable[str]) -> str:
    seen = set(statuses)
    return next((status for status in SEVERITY if status in seen), NOT_MONITORED)


def _split(record: Record, marking: Marking) -> tuple[list[Incident], list[Incident]]:
    """The incidents that make the resource down, and those that make it degraded."""
    down: list[Incident] = []
    degraded: list[Incident] = []
    for incident in record.incidents:
        if _matches(marking.down_for, marking.down_rule, incident):
            down.append(incident)
        elif _matches(marking.degraded_for, marking.degraded_rule, incident):
            degraded.append(incident)
    return down, degraded


def current_status(record: Record, marking: Marking, now: datetime) -> str:
    """The status the resource has now."""
    return _current(record, *_split(record, marking), now)


def _current(record: Record, down: list[Incident], degraded: list[Incident], now: datetime) -> str:
    if record.paused or not record.observed_now:
        return NOT_MONITORED
    if _covers(down, now):
        return DOWNTIME
    if _covers(degraded, now) or record.degraded_now:
        return DEGRADED
    if record.maintenance_now:
        return MAINTENANCE
    return OPERATIONAL


def aggregate_state(statuses: Iterable[str]) -> str:
    """A page's state: the worst status among its resources (not_monitored ones ignored)."""
    seen = set(statuses)
    return next((status for status in SEVERITY if status in seen), OPERATIONAL)
