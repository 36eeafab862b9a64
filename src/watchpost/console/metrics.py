"""/metrics: charts of metrics, by name and time range (server-rendered SVG).

Two kinds: a source's metric samples in the logs store (OTLP metrics, logs/otlp_metrics.py;
`?source=<id>`), read with the store's `search_metrics` in SLICES windows of the range
(each at most PER_SLICE samples, so a long range is sampled across its whole width, never
read whole); and a collector target's samples (collectors/metrics.py, kept a day;
`?target=<id>`), read from the database with a bounded query. Values in one slice of the
chart are averaged. Any member may read them; another team's source or target is a 404.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from markupsafe import Markup, escape
from sqlalchemy import select

from watchpost.collectors.models import CollectorTarget, TargetMetricSample
from watchpost.console.charts import both_widths, label_count
from watchpost.console.logs_params import PRESETS
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.errors import NotFound
from watchpost.http.deps import request_sessions
from watchpost.logs.store import MetricSearch
from watchpost.people.roles import Action
from watchpost.sources.models import Source
from watchpost.validation import object_id

router = console_router()
SLICES: Final = 60
PER_SLICE: Final = 40
MAX_TARGET_ROWS: Final = 5000
MAX_CHOICES: Final = 100
MAX_NAMES: Final = 200


def _bucket(
    points: Sequence[tuple[datetime, float]], since: datetime, until: datetime
) -> list[tuple[datetime, float]]:
    """The mean value of each of SLICES slices that holds points."""
    step = (until - since) / SLICES
    sums: dict[int, list[float]] = {}
    for at, value in points:
        index = int((at - since) / step)
        if 0 <= index < SLICES and math.isfinite(value):
            sums.setdefault(index, []).append(value)
    return [(since + step * i + step / 2, sum(v) / len(v)) for i, v in sorted(sums.items())]


def line_svg(
    name: str, points: list[tuple[datetime, float]], since: datetime, until: datetime
) -> Markup:
    """A metric's samples as line charts, one for wide screens and one for phones."""
    return both_widths(
        lambda width, css_class: _line(name, points, since, until, width, css_class), 760
    )


def _line(
    name: str,
    points: list[tuple[datetime, float]],
    since: datetime,
    until: datetime,
    width: int,
    css_class: str,
) -> Markup:
    height, left, bottom, top = 160, 64, 20, 8
    plot_w, plot_h = width - left - 8, height - top - bottom
    low = min((v for _, v in points), default=0.0)
    high = max((v for _, v in points), default=1.0)
    low = min(low, 0.0)
    if high <= low:
        high = low + 1
    span = (until - since).total_seconds()

    def x(at: datetime) -> float:
        return left + plot_w * (at - since).total_seconds() / span

    def y(value: float) -> float:
        return top + plot_h * (1 - (value - low) / (high - low))

    label = f"{name}: {len(points)} points between {since:%Y-%m-%d %H:%M} and {until:%Y-%m-%d %H:%M} UTC"
    if points:
        label += f", from {min(v for _, v in points):g} to {max(v for _, v in points):g}"
    parts = [
        f'<svg class="{css_class}" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">',
        f'<line class="chart-axis" x1="{left}" y1="{top + plot_h}" x2="{width - 8}" y2="{top + plot_h}"/>',
        f'<text x="{left - 4}" y="{top + 10}" text-anchor="end">{high:.4g}</text>',
        f'<text x="{left - 4}" y="{top + plot_h}" text-anchor="end">{low:.4g}</text>',
    ]
    fmt = "%b %d %H:%M" if until - since > timedelta(days=2) else "%H:%M"
    ticks = label_count(width)
    for i in range(ticks):
        at = since + (until - since) * i / ticks
        parts.append(
            f'<text x="{x(at):.1f}" y="{height - 4}">{at.astimezone(UTC).strftime(fmt)}</text>'
        )
    if points:
        path = " ".join(f"{x(at):.1f},{y(v):.1f}" for at, v in points)
        parts.append(f'<polyline class="chart-line" points="{path}"/>')
        for at, v in points:
            parts.append(
                f'<circle class="metric-dot" cx="{x(at):.1f}" cy="{y(v):.1f}" r="2">'
                f"<title>{escape(f'{v:g} at {at:%Y-%m-%d %H:%M:%S} UTC')}</title></circle>"
            )
    else:
        parts.append(f'<text x="{left + 8}" y="{top + plot_h / 2}">No samples in this range</text>')
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704  (every text in it is escaped above)


async def _source_points(
    store: Any, source_id: int, name: str | None, since: datetime, until: datetime
) -> tuple[list[str], list[tuple[datetime, float]]]:
    step = (until - since) / SLICES
    searches = [
        MetricSearch(
            source_ids=[source_id],
            name=name,
            since=since + step * i,
            until=since + step * (i + 1),
            limit=PER_SLICE,
        )
        for i in range(SLICES)
    ]
    found = await asyncio.gather(*(store.search_metrics(s) for s in searches))
    samples = [p for part in found for p in part]
    names = sorted({p.name for p in samples})[:MAX_NAMES]
    return names, [(p.dt, p.value) for p in samples if name is None or p.name == name]


@router.get("/metrics")
async def metrics_page(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    ctx = request.app.state.ctx
    query = request.query_params
    range_key = query.get("range", "1h")
    if range_key not in PRESETS:
        range_key = "1h"
    until = ctx.clock.now()
    since = until - PRESETS[range_key][1]
    name = query.get("name", "").strip()[:255] or None
    db = await request_sessions(request).read()
    sources = list(
        await db.execute(
            select(Source.id, Source.name)
            .where(Source.team_id == who.team_id)
            .order_by(Source.name)
            .limit(MAX_CHOICES)
        )
    )
    targets = list(
        await db.execute(
            select(CollectorTarget.id, CollectorTarget.kind, CollectorTarget.host)
            .where(CollectorTarget.team_id == who.team_id)
            .order_by(CollectorTarget.id)
            .limit(MAX_CHOICES)
        )
    )
    names: list[str] = []
    points: list[tuple[datetime, float]] = []
    chosen = ""
    kind, _, raw_of = query.get("of", "").partition(":")
    raw_source = query.get("source", "") or (raw_of if kind == "source" else "")
    raw_target = query.get("target", "") or (raw_of if kind == "target" else "")
    if raw_source:
        source_id = object_id(raw_source, "source")
        owner = await db.scalar(select(Source.team_id).where(Source.id == source_id))
        if owner != who.team_id:
            raise NotFound("source", raw_source)
        await request_sessions(request).close()
        chosen = f"source:{source_id}"
        names, _ = await _source_points(ctx.logs, source_id, None, since, until)
        name = name if name in names else (names[0] if names else None)
        if name is not None:
            _, points = await _source_points(ctx.logs, source_id, name, since, until)
    elif raw_target:
        target_id = object_id(raw_target, "collector target")
        owner = await db.scalar(
            select(CollectorTarget.team_id).where(CollectorTarget.id == target_id)
        )
        if owner != who.team_id:
            raise NotFound("collector target", raw_target)
        chosen = f"target:{target_id}"
        rows = list(
            await db.execute(
                select(TargetMetricSample.at, TargetMetricSample.values)
                .where(
                    TargetMetricSample.team_id == who.team_id,
                    TargetMetricSample.target_id == target_id,
                    TargetMetricSample.at >= since,
                    TargetMetricSample.at < until,
                )
                .order_by(TargetMetricSample.at.desc())
                .limit(MAX_TARGET_ROWS)
            )
        )
        names = sorted({key for row in rows for key in row.values})[:MAX_NAMES]
        name = name if name in names else (names[0] if names else None)
        if name is not None:
            points = [
                (row.at, float(row.values[name]))
                for row in rows
                if isinstance(row.values.get(name), int | float)
            ]
    chart = line_svg(name, _bucket(points, since, until), since, until) if name else None
    return render(
        request,
        "metrics.html",
        viewer=who,
        section="metrics",
        sources=sources,
        targets=targets,
        chosen=chosen,
        names=names,
        name=name,
        range_key=range_key,
        presets=PRESETS,
        chart=chart,
        raw_source=raw_source,
        raw_target=raw_target,
    )
