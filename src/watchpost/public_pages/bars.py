"""The history bars and the response-time chart of a resource, as the values an inline SVG
draws.

A page of 50 resources of 90 days has 4,500 day bars; one element per bar would alone weigh
more than the whole page may (< 60 KB). Consecutive days with the same numbers (status,
downtime, maintenance) are therefore drawn as one run: one element spanning them, with one
`<title>` (the tooltip) giving their dates and numbers, and a single pattern drawn over
every bar strip separates the days visually. A quiet quarter is then a handful of elements
while every day keeps a bar and a tooltip of its own numbers.

A run is a horizontal stroke one unit thick (`<path d=M8,.5h1>`: the strip is one unit
high), which needs no width, height or class of its own: the runs of a class are grouped in
one `<g class=..>` whose colour their strokes inherit. `day_strip` and `hour_strip` write a
strip with its axis line in Python (no template loop per bar) and keep the strips they made
(a strip is a function of its days' numbers): a page whose days did not change costs a
dictionary look-up per strip.

Day classes (CSS, each with a text equivalent in the tooltip and the legend): `o`
operational, `g` degraded, `m` maintenance, `n` not monitored ("No data"), and
downtime by its minutes: `d1` under 5, `d2` under 60, `d3` an hour or more. Stretches of plain
operational days share one run drawn beneath the rest (`_on_base`). Dates in tooltips leave
out the year when it is the year of the strip's last day.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from operator import itemgetter
from typing import Any, Final
from zoneinfo import ZoneInfo

from markupsafe import Markup, escape

from watchpost.public_pages.view import Day, Hour, Point, ResourceView
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
    parts = [f"{duration(day.downtime_s)} down" if day.downtime_s else "no downtime"]
    if day.status == DEGRADED:
        parts.append("degraded")
    if day.maintenance_s:
        parts.append(f"{duration(day.maintenance_s)} maintenance")
    return ", ".join(parts)


def _day_text(day: date, year: int | None = None) -> str:
    """4 Mar 2026, or 4 Mar when `year` is its year."""
    return f"{day.day} {day:%b}" if day.year == year else f"{day.day} {day:%b %Y}"


def _span_text(first: date, last: date, year: int | None = None) -> str:
    """4 Mar 2026; 4-9 Mar 2026; 28 Feb-3 Mar 2026; 30 Dec 2025-2 Jan 2026 (en dashes); the
    year left out when it is `year`."""
    if first == last:
        return _day_text(first, year)
    if first.year != last.year:
        return f"{_day_text(first, year)}\u2013{_day_text(last, year)}"
    if first.month != last.month:
        return f"{first.day} {first:%b}\u2013{_day_text(last, year)}"
    return f"{first.day}\u2013{_day_text(last, year)}"


def day_runs(days: Sequence[Day]) -> list[Run]:
    """One run per stretch of days with the same numbers; its tooltip: the days (and how
    many), then the numbers each of them had."""
    runs: list[Run] = []
    year = days[-1].day.year if days else None
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
        length = end - index
        when = _span_text(first.day, days[end - 1].day, year)
        if length > 1:
            when += f" ({length} days)"
        runs.append(Run(index, length, day_class(first), f"{when}: {_numbers(first)}"))
        index = end
    return _on_base(runs, days, year)


def _on_base(runs: list[Run], days: Sequence[Day], year: int | None) -> list[Run]:
    """Two or more stretches of plain operational days become one run under the others
    (drawn after it, on top): from the first such day to the last, its tooltip saying those
    days had no downtime. Most of a page's days are such days; it halves the runs."""
    plain = [run for run in runs if run.cls == "o"]
    if len(plain) < 2:
        return runs
    start, end = plain[0].start, plain[-1].start + plain[-1].length
    when = _span_text(days[start].day, days[end - 1].day, year)
    base = Run(start, end - start, "o", f"{when}: no downtime but on marked days")
    return [base, *(run for run in runs if run.cls != "o")]


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
    coords = " ".join(f"{index},{round(height - p.avg_ms / top * height)}" for index, p in placed)
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


STRIPS_KEPT: Final = 5000
_strips: OrderedDict[Hashable, Markup] = OrderedDict()
_NUMBERS: Final = itemgetter("status", "downtime_duration", "maintenance_duration")


def _path(run: Run, attrs: str = "") -> str:
    return f"<path d=M{run.start},.5h{run.length}{attrs}><title>{escape(run.title)}</title></path>"


def strip(runs: Sequence[Run], count: int, label: str) -> str:
    """The SVG of a strip of `count` bars: the runs by class (first run's class first, so
    that the base run stays beneath; a class of one run needs no group), each a stroke with
    its tooltip, then the day gaps."""
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(run.cls, []).append(run)
    parts = []
    for cls, members in groups.items():
        if len(members) == 1:
            parts.append(_path(members[0], f" class={cls}"))
        else:
            parts.append(f"<g class={cls}>{''.join(_path(run) for run in members)}</g>")
    body = "".join(parts)
    return (
        f'<svg class=bars viewBox="0 0 {count} 1" preserveAspectRatio=none role=img '
        f'aria-label="{escape(label)}" data-bars={count}>{body}'
        f"<rect width={count} height=1 class=gap /></svg>"
    )


def availability(resource: ResourceView) -> str:
    count = len(resource.history)
    if resource.availability is None:
        return f"No data in {count} days"
    text = f"{resource.availability * 100:.2f}% uptime over {count} days"
    monitored = resource.monitored_days
    return text + (f" ({monitored} of {count} days monitored)" if monitored < count else "")


def _kept(key: Hashable, make: Any) -> Markup:
    found = _strips.get(key)
    if found is None:
        found = _strips[key] = Markup(make())  # noqa: S704 (escaped where it is made)
        if len(_strips) > STRIPS_KEPT:
            _strips.popitem(last=False)
    else:
        _strips.move_to_end(key)
    return found


def day_strip(resource: ResourceView) -> Markup:
    """The day bars of a resource and their axis line (kept: see the module notes)."""
    history = resource.history
    first = history[0]["day"] if history else ""
    key = ("days", first, tuple(map(_NUMBERS, history)), resource.availability)

    def make() -> str:
        days = resource.days
        down = sum(1 for day in days if day.status == DOWNTIME)
        label = f"Daily history: {down} days with downtime"
        return (
            strip(day_runs(days), len(days), label)
            + f"<p class=ax><span>{len(days)} days ago</span>"
            f"<span>{escape(availability(resource))}</span><span>Today</span></p>"
        )

    return _kept(key, make)


def hour_strip(resource: ResourceView, tz: ZoneInfo) -> Markup:
    """The last 24 hours' bars of a resource and their axis line."""
    hours = resource.hours
    key = (
        "hours",
        str(tz),
        tuple((h.start, h.checks, h.failures) for h in hours),
        resource.availability,
        first_day(resource),
        len(resource.history),
        resource.monitored_days,
    )

    def make() -> str:
        return (
            strip(hour_runs(hours, tz), len(hours), "Last 24 hours, by hour")
            + "<p class=ax><span>24 hours ago</span>"
            f"<span>{escape(availability(resource))}</span><span>Now</span></p>"
        )

    return _kept(key, make)


def item(resource: ResourceView, tz: ZoneInfo) -> Markup:
    """A resource's list item without a chart (macros.html's resource_item writes those):
    its name and status, explanation, and its day or hour bars."""
    status = resource.status
    lines = [
        "<li>",
        f"<div class=row><span class=name>{escape(resource.name)}</span>"
        f'<span class="st st-{escape(status)}">{escape(LABELS.get(status, status))}</span></div>',
    ]
    if resource.explanation:
        lines.append(f'<p class="x">{escape(resource.explanation)}</p>')
    if resource.widget == "intraday_history" and resource.hours:
        lines.append(hour_strip(resource, tz))
    elif resource.widget in ("history", "intraday_history"):
        lines.append(day_strip(resource))
    lines.append("</li>")
    return Markup("\n".join(lines))  # noqa: S704 (every value escaped above)


def first_day(resource: ResourceView) -> str:
    return str(resource.history[0]["day"]) if resource.history else ""
