"""A row's 24-hour sparkline as a small inline SVG, and availability as text.

Drawn on the server (as the status pages draw their bars), so the overview needs no script.
No style attributes: the CSP forbids inline styles, so the stylesheet colours the classes
`spark-line` (the response time) and `spark-down` (a mark under each hour with a failed
check; red means down and nothing else).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from markupsafe import Markup, escape

WIDTH: Final = 120
HEIGHT: Final = 24
DOWN_HEIGHT: Final = 3
"""The down marks' strip at the bottom; the line is drawn above it."""


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def sparkline_svg(values: Sequence[float | None], down: Sequence[bool], *, label: str) -> Markup:
    """The values (None: no check that hour) as a line scaled to the largest, broken where
    a value is missing; a mark under each hour in `down`. `label` is its accessible name."""
    count = max(len(values), len(down), 1)
    step = WIDTH / count
    top = max((v for v in values if v is not None), default=0.0)
    line_height = HEIGHT - DOWN_HEIGHT - 2
    parts: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) == 1:  # a lone hour: a dot-sized segment so it shows
            x, y = run[0].split(",")
            run.append(f"{_number(float(x) + 1)},{y}")
        if run:
            parts.append(f'<polyline class="spark-line" points="{" ".join(run)}"/>')
        run.clear()

    for n, value in enumerate(values):
        if value is None:
            flush()
            continue
        x = step * n + step / 2
        y = 1 + line_height * (1 - (value / top if top > 0 else 0.5))
        run.append(f"{_number(x)},{_number(y)}")
    flush()
    for n, failed in enumerate(down):
        if failed:
            parts.append(
                f'<rect class="spark-down" x="{_number(step * n)}" y="{HEIGHT - DOWN_HEIGHT}"'
                f' width="{_number(step)}" height="{DOWN_HEIGHT}"/>'
            )
    return Markup(  # noqa: S704 (the label is escaped; the rest are numbers)
        f'<svg class="sparkline" role="img" aria-label="{escape(label)}"'
        f' viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}"'
        f' xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(label)}</title>{''.join(parts)}</svg>"
    )


def availability_text(pct: float | None) -> str:
    """ "99.98 %" (two decimals, never rounded up to 100 % while anything was down); "—" when
    nothing was observed."""
    if pct is None:
        return "—"
    hundredths = math.floor(round(pct * 100, 6)) / 100  # cut, not rounded: 99.999 is not 100
    return f"{hundredths:.2f} %"
