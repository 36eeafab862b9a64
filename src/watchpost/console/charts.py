"""Server-rendered SVG charts for the console: no script, no inline style (the console's
CSP forbids it); the stylesheet colours them through their classes:
`chart`, `chart-line`, `chart-axis`, `chart-grid`, `chart-down`, `chart-label`, `chart-empty`.

The response-time chart, and what every time chart shares (console/state_chart.py draws a
heartbeat's history with them): the opening and accessible name, the axes, the time
labels, and bands over runs of slots.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final, TypeVar

from markupsafe import Markup, escape

from watchpost.console.series import Point

LEFT: Final = 56
RIGHT: Final = 8
TOP: Final = 8
BOTTOM: Final = 24
EMPTY: Final = "No checks in this period"
X_TICKS: Final = 5
NARROW: Final = 360
"""A chart's width for phones, in its own units: about a phone's CSS pixels."""


def number(value: float) -> str:
    """A coordinate with at most one decimal (short markup, stable output)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _nice_top(highest: float) -> float:
    """A round number just above `highest` for the y axis (1, 2, 2.5 or 5 times a power of ten)."""
    if highest <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(highest))
    for step in (1, 2, 2.5, 5, 10):
        if step * magnitude >= highest:
            return float(step * magnitude)
    return float(10 * magnitude)


def _ms_text(value: float, *, seconds: bool = False) -> str:
    """Milliseconds as people read them: "250 ms", "2.5 s" (`seconds`: in s even below 1 s,
    so one axis keeps one unit)."""
    if value >= 1000 or seconds:
        return f"{value / 1000:g} s"
    return f"{value:g} ms"


_TICK_STEPS: Final = tuple(
    timedelta(hours=hours) for hours in (1, 2, 3, 6, 12, 24, 48, 7 * 24, 14 * 24, 28 * 24)
)
_EPOCH: Final = datetime(2000, 1, 3, tzinfo=UTC)
"""A Monday at 00:00 UTC: ticks a week apart fall on Mondays."""


def _time_ticks(start: datetime, span: timedelta) -> list[datetime]:
    """Round UTC times within the span, at most X_TICKS + 1 of them, evenly apart."""
    step = next((s for s in _TICK_STEPS if span / s <= X_TICKS), _TICK_STEPS[-1])
    first = _EPOCH + math.ceil((start - _EPOCH) / step) * step
    return [first + step * k for k in range(int((start + span - first) / step) + 1)]


def _time_text(at: datetime, span: timedelta) -> str:
    return at.strftime("%H:%M") if span <= timedelta(hours=36) else at.strftime("%d %b")


def open_svg(
    name: str, description: str | None, *, width: int, height: int, css_class: str = "chart"
) -> list[str]:
    """A chart's opening: an image (`role="img"`) named `name`, `description` its summary."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" role="img" '
        f'viewBox="0 0 {width} {height}" aria-label="{escape(name)}">',
        f"<title>{escape(name)}</title>",
    ]
    if description is not None:
        parts.append(f"<desc>{escape(description)}</desc>")
    return parts


def axes(left: float, top: float, right: float, bottom: float, *, y_axis: bool = True) -> list[str]:
    """The plot's left (unless not `y_axis`) and bottom axis lines."""
    # lines, not one L-shaped path: a path would be filled unless the stylesheet says not
    x1, y1, x2, y2 = number(left), number(top), number(right), number(bottom)
    lines = [f'<line class="chart-axis" x1="{x1}" y1="{y1}" x2="{x1}" y2="{y2}"/>']
    lines.append(f'<line class="chart-axis" x1="{x1}" y1="{y2}" x2="{x2}" y2="{y2}"/>')
    return lines if y_axis else lines[1:]


def time_labels(
    start: datetime,
    span: timedelta,
    x: Callable[[datetime], float],
    *,
    left: float,
    right: float,
    y: float,
) -> list[str]:
    """Round UTC times along the bottom axis (`x` places a time), none too near an end."""
    labels: list[str] = []
    for at in _time_ticks(start, span):
        tick_x = x(at)
        if left + 16 <= tick_x <= right - 16:
            labels.append(
                f'<text class="chart-label" x="{number(tick_x)}" y="{number(y)}" '
                f'text-anchor="middle">{_time_text(at, span)}</text>'
            )
    return labels


T = TypeVar("T")
K = TypeVar("K")


def runs(items: Sequence[T], key: Callable[[T], K]) -> Iterator[tuple[K, int, int]]:
    """(key, first index, last index) of each run of consecutive items with one key."""
    index = 0
    while index < len(items):
        value, end = key(items[index]), index
        while end + 1 < len(items) and key(items[end + 1]) == value:
            end += 1
        yield value, index, end
        index = end + 1


def band(css_class: str, left: float, right: float, top: float, bottom: float, title: str) -> str:
    """A rectangle across the plot from `left` to `right` (at least 1 wide), `title` its
    tooltip."""
    return (
        f'<rect class="{css_class}" x="{number(left)}" y="{number(top)}" '
        f'width="{number(max(right - left, 1))}" height="{number(bottom - top)}">'
        f"<title>{escape(title)}</title></rect>"
    )


def step_of(times: Sequence[datetime]) -> timedelta:
    """One slot's width: the spacing of the slots (an hour for a single slot)."""
    if len(times) < 2:
        return timedelta(hours=1)
    return (times[-1] - times[0]) / (len(times) - 1)


def _summary(points: Sequence[Point]) -> str:
    timed = [p.ms for p in points if p.ms is not None]
    downs = sum(1 for p in points if p.down)
    text = (
        f"Average {_ms_text(round(sum(timed) / len(timed)))}, highest {_ms_text(round(max(timed)))}"
    )
    return text + (f"; down in {downs} of {len(points)} periods." if downs else "; never down.")


def both_widths(draw: Callable[[int, str], Markup], wide: int) -> Markup:
    """A chart drawn twice, `draw(width, css_class)`: `wide` and NARROW units wide, classed
    `chart-wide` and `chart-narrow`. The stylesheet shows the narrow one on a phone, where the
    wide one, scaled down to the screen, would have labels of 5 px."""
    return draw(wide, "chart chart-wide") + draw(NARROW, "chart chart-narrow")


def label_count(width: int) -> int:
    """How many time labels fit along a chart `width` units wide."""
    return X_TICKS if width > NARROW else 3


def response_charts(points: Sequence[Point], *, label: str) -> Markup:
    """The response-time chart at both widths (a little taller on a phone)."""
    return both_widths(
        lambda width, css_class: response_chart_svg(
            points,
            label=label,
            width=width,
            height=180 if width > NARROW else 200,
            css_class=css_class,
        ),
        720,
    )


def response_chart_svg(
    points: Sequence[Point],
    *,
    label: str,
    width: int = 720,
    height: int = 180,
    css_class: str = "chart",
) -> Markup:
    """A line chart of response times (ms) over time, down periods shaded behind it.

    Its accessible name is "Response time, <label>" (e.g. "last 24 hours"); a series
    without a timed check says "No checks in this period" in the name and the drawing.
    """
    timed = [p.ms for p in points if p.ms is not None]
    name = f"Response time, {label}" + ("" if timed else f": {EMPTY.lower()}")
    summary = _summary(points) if timed else None
    parts = open_svg(name, summary, width=width, height=height, css_class=css_class)
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM
    bottom = TOP + plot_h
    parts += axes(LEFT, TOP, LEFT + plot_w, bottom)
    if not timed:
        parts.append(
            f'<text class="chart-empty" x="{number(LEFT + plot_w / 2)}" '
            f'y="{number(TOP + plot_h / 2)}" text-anchor="middle">{EMPTY}</text>'
        )
    if not points:
        return Markup("".join(parts) + "</svg>")  # noqa: S704 (every text escaped above)

    step = step_of([p.at for p in points])
    start = points[0].at
    span = points[-1].at + step - start

    def x(at: datetime) -> float:
        return LEFT + (at - start) / span * plot_w

    top = _nice_top(max(timed, default=0.0))

    def y(ms: float) -> float:
        return bottom - ms / top * plot_h

    parts += _down_marks(points, x, step, bottom)
    for k in range(1, 5):
        level = top * k / 4
        level_y = number(y(level))
        parts.append(
            f'<line class="chart-grid" x1="{LEFT}" y1="{level_y}" x2="{LEFT + plot_w}" y2="{level_y}"/>'
        )
    for k in range(0, 5, 2):
        level = top * k / 4
        parts.append(
            f'<text class="chart-label" x="{LEFT - 4}" y="{number(y(level) + 4)}" '
            f'text-anchor="end">{_ms_text(level, seconds=top >= 1000)}</text>'
        )
    parts += time_labels(start, span, x, left=LEFT, right=LEFT + plot_w, y=height - 6)
    parts += _line(points, lambda p: x(p.at + step / 2), y)
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 (every text escaped above)


def _down_marks(
    points: Sequence[Point], x: Callable[[datetime], float], step: timedelta, bottom: float
) -> list[str]:
    """One shaded rectangle per run of down points, with its time as a tooltip."""
    marks: list[str] = []
    for down, first, last in runs(points, lambda p: p.down):
        if down:
            start, end = points[first].at, points[last].at + step
            title = f"Down between {start:%Y-%m-%d %H:%M} and {end:%Y-%m-%d %H:%M} UTC"
            marks.append(band("chart-down", x(start), x(end), TOP, bottom, title))
    return marks


def _line(
    points: Sequence[Point], x: Callable[[Point], float], y: Callable[[float], float]
) -> list[str]:
    """The response-time line, broken where a slot has no timed check; a lone point is
    a dot."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point.ms is None:
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append((x(point), y(point.ms)))
    shapes: list[str] = []
    path = []
    for run in runs:
        if len(run) == 1:
            (px, py) = run[0]
            shapes.append(f'<circle class="chart-line" cx="{number(px)}" cy="{number(py)}" r="2"/>')
        elif run:
            path.append("M" + "L".join(f"{number(px)} {number(py)}" for px, py in run))
    if path:
        shapes.insert(0, f'<path class="chart-line" d="{"".join(path)}"/>')
    return shapes
