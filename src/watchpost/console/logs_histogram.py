"""The log explorer's histogram: how many events match a search in each slice of its time
range, counted by the logs store's own engine (`LogStore.count_by_slice`, logs/counting.py:
one GROUP BY, never reading the events), so the bars count what the results list; "about"
when the store could only count a superset.

The chart is SVG drawn on the server (`role="img"`, an accessible name, a `<title>` per bar
for hover), coloured by the stylesheet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from markupsafe import Markup, escape

from watchpost.console.charts import both_widths, label_count
from watchpost.logs.store import LogStore, Search

STEPS: Final = tuple(
    timedelta(seconds=s)
    for s in (
        1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    )
)  # fmt: skip
MAX_BARS: Final = 60


@dataclass(frozen=True)
class Histogram:
    start: datetime
    step: timedelta
    counts: list[int]
    approximate: bool

    @property
    def total(self) -> int:
        return sum(self.counts)


def step_for(since: datetime, until: datetime) -> timedelta:
    """The slice: the smallest round step giving at most MAX_BARS bars."""
    span = until - since
    return next(
        (s for s in STEPS if span / s <= MAX_BARS),
        STEPS[-1] * math.ceil(span / (STEPS[-1] * MAX_BARS)),
    )


async def histogram(store: LogStore, search: Search) -> Histogram:
    """Counts of the search's events per slice of [since, until), by the store's engine."""
    assert search.since is not None and search.until is not None
    step = step_for(search.since, search.until)
    start = search.since
    bars = math.ceil((search.until - start) / step)
    found = await store.count_by_slice(search, start, step)
    counts = [found.counts.get(index, 0) for index in range(bars)]
    return Histogram(start, step, counts, found.approximate)


# ------------------------------------------------------------------------------- drawing

WIDTH: Final = 760
HEIGHT: Final = 120
LEFT: Final = 48
BOTTOM: Final = 20
TOP: Final = 6


def _label(at: datetime, step: timedelta, span: timedelta) -> str:
    at = at.astimezone(UTC)
    if span > timedelta(days=2):
        return at.strftime("%b %d %H:%M")
    if step >= timedelta(minutes=1):
        return at.strftime("%H:%M")
    return at.strftime("%H:%M:%S")


def _nice_top(highest: int) -> int:
    if highest <= 0:
        return 1
    magnitude = 10 ** math.floor(math.log10(highest))
    for step in (1, 2, 5, 10):
        if step * magnitude >= highest:
            return int(step * magnitude)
    return int(10 * magnitude)


def svg(found: Histogram, until: datetime) -> Markup:
    """The histogram as SVG bar charts, one for wide screens and one for phones."""
    return both_widths(lambda width, css_class: _bars(found, until, width, css_class), WIDTH)


def _bars(found: Histogram, until: datetime, width: int, css_class: str) -> Markup:
    bars = len(found.counts)
    span = until - found.start
    top = _nice_top(max(found.counts, default=0))
    plot_w = width - LEFT - 4
    plot_h = HEIGHT - TOP - BOTTOM
    bar_w = plot_w / max(bars, 1)
    about = "about " if found.approximate else ""
    name = (
        f"Matching events over time: {about}{found.total:,} between "
        f"{found.start.astimezone(UTC):%Y-%m-%d %H:%M} and {until.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    )
    parts = [
        f'<svg class="{css_class} histogram" viewBox="0 0 {width} {HEIGHT}" role="img" '
        f'aria-label="{escape(name)}" preserveAspectRatio="none">',
        f'<line class="chart-axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{width - 4}" y2="{TOP + plot_h}"/>',
        f'<text x="{LEFT - 4}" y="{TOP + 10}" text-anchor="end">{top:,}</text>',
        f'<text x="{LEFT - 4}" y="{TOP + plot_h}" text-anchor="end">0</text>',
    ]
    for index, count in enumerate(found.counts):
        at = found.start + found.step * index
        height = plot_h * count / top
        x = LEFT + index * bar_w
        tip = f"{count:,} events from {_label(at, found.step, span)}"
        parts.append(
            f'<rect class="histogram-bar" x="{x + 0.5:.1f}" y="{TOP + plot_h - height:.1f}" '
            f'width="{max(bar_w - 1, 0.5):.1f}" height="{height:.1f}"><title>{escape(tip)}</title></rect>'
        )
    for index in range(0, bars, max(1, bars // label_count(width))):
        at = found.start + found.step * index
        x = LEFT + index * bar_w
        label = _label(at, found.step, span)
        # a label near the right edge ends at its tick, so the chart does not cut it off
        anchor = ' text-anchor="end"' if x + 7 * len(label) > width - 4 else ""
        parts.append(
            f'<text x="{min(x, width - 4):.1f}" y="{HEIGHT - 4}"{anchor}>{escape(label)}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704  (every text in it is escaped above)
