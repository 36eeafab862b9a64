"""A heartbeat's history as a server-rendered SVG state timeline: one band per run of slots
in one state (up, down, maintenance, no data), each with its times as a tooltip, drawn with
console/charts.py's opening, axis, time labels and bands. A heartbeat has no response time,
so this is its chart.

The stylesheet colours the bands through their classes (`chart chart-states`, `chart-state-up`,
`chart-state-down`, `chart-state-maintenance`, `chart-state-none`); every state is a word
too, in the tooltips, the summary and the legend beside the chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Final

from markupsafe import Markup

from watchpost.console.charts import axes, band, number, open_svg, runs, step_of, time_labels
from watchpost.console.series import Slot, SlotState

LEFT: Final = 24
RIGHT: Final = 24
"""Room for half a time label at either end: on a phone the labels are twice as large."""
TOP: Final = 8
BOTTOM: Final = 24
EMPTY: Final = "No data in this period"

STATE_WORDS: Final[dict[SlotState, str]] = {
    "up": "Up",
    "down": "Down",
    "maintenance": "Maintenance",
    "none": "No data",
}
"""The legend's words, in its order."""


def duration_text(seconds: float) -> str:
    """A duration as people read it: "under a minute", "45 min", "3 h 20 min", "2 d 4 h"."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return "under a minute"
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min"


def _times(slots: Sequence[Slot]) -> str:
    """The seconds of each state in the slots, in words: "up 3 h, down 20 min"."""
    spent = (
        ("up", sum(s.up_s for s in slots)),
        ("down", sum(s.down_s for s in slots)),
        ("in maintenance", sum(s.maintenance_s for s in slots)),
    )
    return ", ".join(f"{word} {duration_text(seconds)}" for word, seconds in spent if seconds)


def _summary(slots: Sequence[Slot], step: timedelta) -> str:
    """What the chart shows, for a screen reader: the share of the watched time up, how
    long it was down or in maintenance, and how much of the range has no data."""
    up = sum(s.up_s for s in slots)
    down = sum(s.down_s for s in slots)
    maintenance = sum(s.maintenance_s for s in slots)
    downs = sum(1 for s in slots if s.state == "down")
    watched = up + down + maintenance
    text = f"Up {up / watched:.1%} of the watched time" if watched else "Never watched"
    if downs:
        text += f"; down {duration_text(down)}, in {downs} of {len(slots)} periods"
    else:
        text += "; never down"
    if maintenance:
        text += f"; in maintenance {duration_text(maintenance)}"
    unwatched = sum(1 for s in slots if s.state == "none")
    if unwatched:
        text += f"; no data for {duration_text(unwatched * step.total_seconds())}"
    return text + "."


def _title(state: SlotState, run: Sequence[Slot], step: timedelta) -> str:
    start, end = run[0].at, run[-1].at + step
    text = f"{STATE_WORDS[state]}, {start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} UTC"
    if state == "none":
        return text + ": not watched (paused, or waiting for its first ping)"
    return f"{text}: {_times(run)}"


def state_chart_svg(
    slots: Sequence[Slot], *, label: str, width: int = 720, height: int = 72
) -> Markup:
    """A timeline of the slots' states, oldest on the left.

    Its accessible name is "History, <label>" (e.g. "last 24 hours"), its description a
    summary (`_summary`); slots never watched say "No data in this period" in the name and
    the drawing.
    """
    watched = any(s.state != "none" for s in slots)
    name = f"History, {label}" + ("" if watched else f": {EMPTY.lower()}")
    step = step_of([s.at for s in slots])
    summary = _summary(slots, step) if watched else None
    parts = open_svg(name, summary, width=width, height=height, css_class="chart chart-states")
    right, bottom = width - RIGHT, height - BOTTOM
    if slots:
        start = slots[0].at
        span = slots[-1].at + step - start

        def x(at: datetime) -> float:
            return LEFT + (at - start) / span * (right - LEFT)

        for state, first, last in runs(slots, lambda s: s.state):
            run = slots[first : last + 1]
            left_x, right_x = x(run[0].at), x(run[-1].at + step)
            title = _title(state, run, step)
            parts.append(band(f"chart-state-{state}", left_x, right_x, TOP, bottom, title))
        parts += time_labels(start, span, x, left=LEFT, right=right, y=height - 6)
    parts += axes(LEFT, TOP, right, bottom, y_axis=False)
    if not watched:
        parts.append(
            f'<text class="chart-empty" x="{number((LEFT + right) / 2)}" '
            f'y="{number((TOP + bottom) / 2 + 4)}" text-anchor="middle">{EMPTY}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 (every text escaped: charts.py)
