"""The history bars and the response-time chart of a resource, as the values an inline SVG
draws.

A page of 50 resources of 90 days has 4,500 day bars; one element per bar would alone weigh
more than the whole page may (< 60 KB). Consecutive days with the same numbers (status,
downtime, maintenance) are therefore drawn as one run: one `<rect>` spanning them, with one
`<title>` (the tooltip) giving their dates and numbers, and a single pattern drawn over
every bar strip separates the days visually. A quiet quarter is then a handful of elements
while every day keeps a bar and a tooltip of its own numbers.

Day classes (CSS, each with a text equivalent in the tooltip and the legend): `o`
operational, `g` degraded, `m` maintenance, `n` not monitored (hatched, "No data"), and
downtime by its minutes: `d1` under 5, `d2` under 60, `d3` an hour or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from watchpost.public_pages.view import Day, Hour, Point
from watchpost.status_pages.availability import (
    DEGRADED,
    DOWNTIME,
    MAINTENANCE,
    NOT_MONITORED,
    OPERATIONAL,
)

LABELS: Final[dict[str, str]] = {
    OPERATIONAL: "Operational",
    DEGRADED: "Degraded",
    DOWNTIME: "Downtime",
    MAINTENANCE: "Maintenance",
    NOT_MONITORED: "No data",
    "resolved": "Resolved",
}
CLASSES: Final[dict[str, str]] = {
    OPERATIONAL: "o",
    DEGRADED: "g",
    MAINTENANCE: "m",
    NOT_MONITORED: "n",
}


@dataclass(frozen=True)
class Run:
    """Consecutive bars drawn as one rectangle: `start` and `length` in bars."""

    start: int
    length: int
    cls: str
    title: str


def duration(seconds: int) -> str:
    """23 min, 2 h 5 min, 40 s."""
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


def day_class(day: Day) -> str:
    if day.status == DOWNTIME:
        minutes = day.downtime_s / 60
        return "d1" if minutes < 5 else "d2" if minutes < 60 else "d3"
    return CLASSES.get(day.status, "n")


def _numbers(day: Day) -> str:
    if day.status == NOT_MONITORED:
        return "no data (not monitored)"
    parts = [LABELS.get(day.status, day.status).lower()]
    parts.append(f"{duration(day.downtime_s)} of downtime" if day.downtime_s else "no downtime")
    if day.maintenance_s:
        parts.append(f"{duration(day.maintenance_s)} of maintenance")
    return ", ".join(parts)


def _day_text(day: date) -> str:
    return f"{day.day} {day:%b %Y}"


def day_runs(days: Sequence[Day]) -> list[Run]:
    runs: list[Run] = []
    index = 0
    while index < len(days):
        first = days[index]
        key = (first.status, first.downtime_s, first.maintenance_s)
        end = index + 1
        while end < len(days):
            other = days[end]
            if (other.status, other.downtime_s, other.maintenance_s) != key:
                break
            end += 1
        last = days[end - 1]
        length = end - index
        when = (
            _day_text(first.day)
            if length == 1
            else f"{_day_text(first.day)} to {_day_text(last.day)} ({length} days, each)"
        )
        runs.append(Run(index, length, day_class(first), f"{when}: {_numbers(first)}"))
        index = end
    return runs


def _hour_text(hour: Hour) -> tuple[str, str]:
    if hour.checks == 0:
        return "no data (not monitored)", "n"
    if hour.failures:
        text = f"{hour.failures} of {hour.checks} checks failed"
        return text, "d1" if hour.failures * 10 < hour.checks else "d3"
    return f"all {hour.checks} checks passed", "o"


def hour_runs(hours: Sequence[Hour], tz: ZoneInfo) -> list[Run]:
    """One run per stretch of hours with the same numbers."""
    runs: list[Run] = []
    index = 0
    while index < len(hours):
        text, cls = _hour_text(hours[index])
        end = index + 1
        while end < len(hours) and _hour_text(hours[end]) == (text, cls):
            end += 1
        first = hours[index].start.astimezone(tz)
        last = (hours[end - 1].start + timedelta(hours=1)).astimezone(tz)
        when = f"{first:%H:00} to {last:%H:00} {last:%Z}"
        runs.append(Run(index, end - index, cls, f"{when}: {text}"))
        index = end
    return runs


@dataclass(frozen=True)
class Chart:
    """A response-time polyline over the window's days (x: day index, y: 0 at the top)."""

    points: str
    avg_ms: float
    min_ms: float
    max_ms: float
    top_ms: float
    width: int
    height: int


def chart(points: Sequence[Point], days: Sequence[date], height: int = 40) -> Chart | None:
    """The chart of the points over the days shown (None without points)."""
    if not points or not days:
        return None
    position = {day: index for index, day in enumerate(days)}
    placed = [(position[p.day], p) for p in points if p.day in position]
    if not placed:
        return None
    top = max(p.avg_ms for _, p in placed) * 1.1 or 1.0
    coords = " ".join(
        f"{index + 0.5:g},{height - p.avg_ms / top * height:.1f}" for index, p in placed
    )
    averages = [p.avg_ms for _, p in placed]
    return Chart(
        points=coords,
        avg_ms=sum(averages) / len(averages),
        min_ms=min(p.min_ms for _, p in placed),
        max_ms=max(p.max_ms for _, p in placed),
        top_ms=top,
        width=len(days),
        height=height,
    )


def local_time(when: datetime, tz: ZoneInfo) -> str:
    """23 Nov 2026, 14:05 CET."""
    local = when.astimezone(tz)
    return f"{local.day} {local:%b %Y, %H:%M %Z}"


def local_day(when: datetime | date, tz: ZoneInfo) -> str:
    day = when.astimezone(tz).date() if isinstance(when, datetime) else when
    return _day_text(day)
