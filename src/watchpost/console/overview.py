"""`/`: the sign-in page when signed out, the team's overview when signed in: counts by state,
the open incidents, then a page of every monitor, heartbeat and collector target with its
state, since when, last response time, 24-hour sparkline and 30-day availability. Every
filter is in the URL (overview_data.parse_filter / to_query); the page is read in a few
statements whatever the number of monitors (docs/benchmarks.md, "Console")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors.models import Collector
from watchpost.console.auth import SignInNeeded, Viewer, viewer
from watchpost.console.errors import ConsoleRoute
from watchpost.console.overview_data import PER_PAGES, SORTS, overview, parse_filter, to_query
from watchpost.console.overview_rules import KINDS, STATES
from watchpost.console.sparkline import availability_text, sparkline_svg
from watchpost.console.web import render
from watchpost.heartbeats.models import HeartbeatGroup
from watchpost.http.deps import request_sessions
from watchpost.incidents.models import Incident
from watchpost.monitors.models import MonitorGroup

router = APIRouter(route_class=ConsoleRoute)
"""Its one route is documented in /openapi.json (`/` also takes the logs API's POST)."""
OPEN_INCIDENTS: Final = 10
SORT_LABELS: Final = {
    "state": "State (down first)",
    "name": "Name, A to Z",
    "-name": "Name, Z to A",
    "since": "Longest in its state",
    "response_time": "Slowest first",
}
KIND_LABELS: Final = {
    "monitor": "Monitors",
    "heartbeat": "Heartbeats",
    "target": "Collector targets",
}
PATHS: Final = {"monitor": "/monitors", "heartbeat": "/heartbeats", "target": "/targets"}


async def _groups(db: AsyncSession, team_id: int) -> list[tuple[str, str]]:
    """The group filter's choices: (value, label)."""
    found: list[tuple[str, str]] = []
    for kind, model, label in (
        ("monitor", MonitorGroup, "Monitor group"),
        ("heartbeat", HeartbeatGroup, "Heartbeat group"),
        ("collector", Collector, "Collector"),
    ):
        rows = await db.execute(
            select(model.id, model.name)
            .where(model.team_id == team_id)
            .order_by(model.name)
            .limit(500)
        )
        found += [(f"{kind}:{row_id}", f"{label}: {name}") for row_id, name in rows.tuples()]
    return found


async def _open_incidents(db: AsyncSession, team_id: int) -> list[Incident]:
    return list(
        await db.scalars(
            select(Incident)
            .where(Incident.team_id == team_id, Incident.resolved_at.is_(None))
            .order_by(Incident.started_at.desc(), Incident.id.desc())
            .limit(OPEN_INCIDENTS)
        )
    )


def _query(request: Request) -> dict[str, Any]:
    query: dict[str, Any] = {}
    for name, value in request.query_params.multi_items():
        query.setdefault(name, []).append(value)
    return query


@router.get(
    "/",
    tags=["console"],
    summary="The console: the sign-in page, or the team's overview when signed in",
    response_class=HTMLResponse,
    responses={200: {"description": "An HTML page", "content": {"text/html": {}}}},
)
async def home(request: Request) -> Response:
    try:
        who = await viewer(request)
    except SignInNeeded:
        return render(
            request,
            "login.html",
            sso=bool(request.app.state.ctx.settings.oidc_issuer),
            sso_label=request.app.state.ctx.settings.oidc_button,
            next="/",
        )
    return await _page(request, who, kind=None)


LISTS: Final = {
    "monitor": ("monitors", "Monitors"),
    "heartbeat": ("heartbeats", "Heartbeats"),
}
"""The kinds with a list page of their own: the overview's list of that kind alone."""


@router.get("/monitors", include_in_schema=False)
async def monitors(request: Request) -> Response:
    return await _page(request, await viewer(request), kind="monitor")


@router.get("/heartbeats", include_in_schema=False)
async def heartbeats(request: Request) -> Response:
    return await _page(request, await viewer(request), kind="heartbeat")


async def _page(request: Request, who: Viewer, *, kind: str | None) -> Response:
    """The overview (kind None), or the list of one kind: the same filters, without the
    team's counts and open incidents, under that kind's own path."""
    flt = parse_filter(_query(request))
    base = "/"
    if kind is not None:
        flt = replace(flt, kinds=frozenset({kind}))
        base = PATHS[kind]
    now = request.app.state.ctx.clock.now()
    db = await request_sessions(request).read()
    found = await overview(db, team_id=who.team_id, flt=flt, now=now)
    incidents = await _open_incidents(db, who.team_id) if kind is None else []
    groups = await _groups(db, who.team_id)
    shown = flt if kind is None else replace(flt, kinds=frozenset())
    section, title = LISTS[kind] if kind is not None else ("overview", "Overview")
    return render(
        request,
        "overview.html",
        viewer=who,
        section=section,
        title=title,
        kind=kind,
        base=base,
        live="/console/events",
        flt=flt,
        data=found,
        incidents=incidents,
        groups=groups,
        link=lambda **changes: _link(base, to_query(shown, **changes)),
        filter_query=to_query(shown, page=1),
        filter_fields=parse_qsl(to_query(flt)),
        spark=lambda row: sparkline_svg(
            row.spark, row.spark_down, label=f"Response time of {row.name}, last 24 hours"
        ),
        availability=availability_text,
        states=STATES,
        kinds=KINDS,
        kind_labels=KIND_LABELS,
        sorts=[(s, SORT_LABELS[s]) for s in SORTS],
        per_pages=PER_PAGES,
        paths=PATHS,
    )


def _link(base: str, query: str) -> str:
    return base + ("?" + query if query else "")
