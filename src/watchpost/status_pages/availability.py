"""Status, availability and day-by-day history of a status page resource.

The check engine records, per monitored item, when it was observed (monitored and not
paused), its incidents and its maintenance windows; `Record` is that interface. This
module turns a record into what a status page shows, applying the resource's
mark_as_down_for / mark_as_degraded_for rules to each incident:

- A day with no observed time at all has status `not_monitored` (never `operational`)
  and zero durations. Days are calendar days in the page's time zone, oldest first,
  the last one being today (observed up to now).
- availability = (observed - maintenance - downtime) / (observed - maintenance) over the
  page's history window, rounded to 6 places; null when nothing was observed.
- Day status: downtime if any downtime, else degraded, else maintenance, else operational.
- Current status: not_monitored when paused or not observed now; else downtime, degraded,
  maintenance (an interval covering now) or operational.
- Durations are whole seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

NOT_MONITORED: Final = "not_monitored"
OPERATIONAL: Final = "operational"
DOWNTIME: Final = "downtime"
DEGRADED: Final = "degraded"
MAINTENANCE: Final = "maintenance"
# Worst first: the page's aggregate_state is the worst status among its resources.
SEVERITY: Final[tuple[str, ...]] = (DOWNTIME, DEGRADED, MAINTENANCE, OPERATIONAL)


@dataclass(frozen=True)
class Span:
    start: datetime
    end: datetime | None = None
    """None: still going on."""


@dataclass(frozen=True)
class Incident:
    start: datetime
    end: datetime | None = None
    metadata: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Incident metadata: key → values, matched against a rule's value tokens."""


@dataclass(frozen=True)
class Record:
    """What the engine recorded for one item over (at least) the window asked for."""

    observed: Sequence[Span] = ()
    incidents: Sequence[Incident] = ()
    maintenance: Sequence[Span] = ()
    paused: bool = False


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
    availability: float | None
    status_history: list[dict[str, Any]]


Interval = tuple[datetime, datetime]


def _matches(mode: str, rule: tuple[str, frozenset[str]] | None, incident: Incident) -> bool:
    if mode == "any_incident":
        return True
    if mode != "incident_matching_metadata" or rule is None:
        return False
    key, tokens = rule
    return any(value in tokens for value in incident.metadata.get(key, ()))


def _merge(intervals: Iterable[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _intersect(left: list[Interval], right: list[Interval]) -> list[Interval]:
    return _merge(
        (max(a, c), min(b, d)) for a, b in left for c, d in right if max(a, c) < min(b, d)
    )


def _subtract(left: list[Interval], right: list[Interval]) -> list[Interval]:
    result: list[Interval] = []
    for start, end in left:
        pieces = [(start, end)]
        for cut_start, cut_end in right:
            pieces = [
                piece
                for a, b in pieces
                for piece in ((a, min(b, cut_start)), (max(a, cut_end), b))
                if piece[0] < piece[1]
            ]
        result += pieces
    return _merge(result)


def _seconds(intervals: list[Interval]) -> float:
    return sum((end - start).total_seconds() for start, end in intervals)


def _closed(spans: Iterable[Span | Incident], now: datetime) -> list[Interval]:
    return _merge((span.start, min(span.end or now, now)) for span in spans)


def _covers(spans: Iterable[Span | Incident], now: datetime) -> bool:
    return any(span.start <= now and (span.end is None or span.end > now) for span in spans)


def _day_start(day: date, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=tz)


def summarize(
    record: Record, marking: Marking, *, now: datetime, days: int, tz: ZoneInfo
) -> Summary:
    """The resource's current status, its availability and one entry per day of the window."""
    down_incidents, degraded_incidents = _split(record, marking)
    observed = _closed(record.observed, now)
    maintenance = _intersect(_closed(record.maintenance, now), observed)
    down = _subtract(_intersect(_closed(down_incidents, now), observed), maintenance)
    degraded = _subtract(
        _subtract(_intersect(_closed(degraded_incidents, now), observed), maintenance), down
    )

    today = now.astimezone(tz).date()
    history: list[dict[str, Any]] = []
    totals = {"observed": 0.0, "maintenance": 0.0, "down": 0.0}
    for offset in range(days - 1, -1, -1):
        day = today - timedelta(days=offset)
        start = _day_start(day, tz)
        end = min(_day_start(day + timedelta(days=1), tz), now)
        window = [(start, end)] if start < end else []
        seen = _seconds(_intersect(observed, window))
        in_maintenance = _seconds(_intersect(maintenance, window))
        in_downtime = _seconds(_intersect(down, window))
        in_degraded = _seconds(_intersect(degraded, window))
        totals["observed"] += seen
        totals["maintenance"] += in_maintenance
        totals["down"] += in_downtime
        if seen <= 0:
            status = NOT_MONITORED
        elif in_downtime > 0:
            status = DOWNTIME
        elif in_degraded > 0:
            status = DEGRADED
        elif in_maintenance > 0:
            status = MAINTENANCE
        else:
            status = OPERATIONAL
        history.append(
            {
                "day": day.isoformat(),
                "status": status,
                "downtime_duration": round(in_downtime),
                "maintenance_duration": round(in_maintenance),
            }
        )

    availability: float | None = None
    counted = totals["observed"] - totals["maintenance"]
    if counted > 0:
        availability = round((counted - totals["down"]) / counted, 6)
    elif totals["observed"] > 0:
        availability = 1.0
    return Summary(_current(record, down_incidents, degraded_incidents, now), availability, history)


def _split(record: Record, marking: Marking) -> tuple[list[Incident], list[Incident]]:
    """The incidents that make the resource down, and those that make it degraded."""
    down = [i for i in record.incidents if _matches(marking.down_for, marking.down_rule, i)]
    degraded = [
        i
        for i in record.incidents
        if i not in down and _matches(marking.degraded_for, marking.degraded_rule, i)
    ]
    return down, degraded


def current_status(record: Record, marking: Marking, now: datetime) -> str:
    """The status the resource has now."""
    return _current(record, *_split(record, marking), now)


def _current(record: Record, down: list[Incident], degraded: list[Incident], now: datetime) -> str:
    if record.paused or not _covers(record.observed, now):
        return NOT_MONITORED
    if _covers(down, now):
        return DOWNTIME
    if _covers(degraded, now):
        return DEGRADED
    if _covers(record.maintenance, now):
        return MAINTENANCE
    return OPERATIONAL


def aggregate_state(statuses: Iterable[str]) -> str:
    """A page's state: the worst status among its resources (not_monitored ones ignored)."""
    seen = set(statuses)
    return next((status for status in SEVERITY if status in seen), OPERATIONAL)
