"""The pages of one monitor, heartbeat or collector target: `/monitors/{id}`,
`/heartbeats/{id}`, `/targets/{id}`, and their buttons' POSTs (pause, resume, delete,
check now; console/operations.py does the work).

A page reads through console/detail_data.py (a handful of indexed reads); the chart's range
is in the URL (`?range=7d`), so the range tabs are links that work without JavaScript. A
monitor's and a target's chart is their response time (console/charts.py), a heartbeat's its
history of states (console/state_chart.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from sqlalchemy import select

from watchpost.audit.service import Actor
from watchpost.collectors.models import CollectorTarget
from watchpost.console import detail_data, operations
from watchpost.console.auth import Viewer, posted_writing
from watchpost.console.charts import response_charts
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.errors import error_page
from watchpost.console.notices import done_query
from watchpost.console.operations import Kind, Operation
from watchpost.console.series import RANGES, response_series
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.state_chart import STATE_WORDS, state_chart_svg
from watchpost.console.web import render
from watchpost.errors import InvalidRequest, NotFound
from watchpost.heartbeats.endpoints import public_base
from watchpost.http.deps import request_sessions
from watchpost.people.roles import Action

router = console_router()
LIVE: Final = "/console/events"

RANGE_NAMES: Final = {"24h": "24 hours", "7d": "7 days", "30d": "30 days"}
AVAILABILITY_NAMES: Final = {**RANGE_NAMES, "365d": "365 days"}
assert set(RANGE_NAMES) == set(RANGES)
assert set(AVAILABILITY_NAMES) == set(detail_data.AVAILABILITY_RANGES)

NEEDS: Final[dict[Operation, Action]] = {
    "pause": Action.OPERATE,
    "resume": Action.OPERATE,
    "check": Action.OPERATE,
    "delete": Action.EDIT,
}
OPERATIONS: Final[dict[Kind, tuple[Operation, ...]]] = {
    "monitor": ("pause", "resume", "delete", "check"),
    "heartbeat": ("pause", "resume", "delete"),  # a heartbeat waits for its pings
    "target": ("pause", "resume", "delete", "check"),
}


def chosen_range(request: Request) -> str:
    wanted = request.query_params.get("range", "24h")
    return wanted if wanted in RANGES else "24h"


def _page(
    request: Request,
    who: Viewer,
    template: str,
    *,
    series: Mapping[str, Any],
    draw: Callable[..., Markup] = response_charts,
    **context: Any,
) -> Response:
    """An object's page, its chart drawn by `draw` from `series` for the range the URL asks
    for (24 hours by default)."""
    range_ = chosen_range(request)
    return render(
        request,
        template,
        viewer=who,
        section={"monitor.html": "monitors", "heartbeat.html": "heartbeats"}.get(
            template, "overview"
        ),
        live=LIVE,
        range_names=RANGE_NAMES,
        availability_names=AVAILABILITY_NAMES,
        range=range_,
        chart=draw(series[range_], label=f"last {RANGE_NAMES[range_]}"),
        **context,
    )


@router.get("/monitors/{monitor_id}")
async def monitor_page(request: Request, who: Signed, monitor_id: int) -> Response:
    db = await request_sessions(request).read()
    now = request.app.state.ctx.clock.now()
    detail = await detail_data.monitor_detail(
        db, team_id=who.team_id, monitor_id=monitor_id, now=now
    )
    return _page(
        request,
        who,
        "monitor.html",
        series=detail.series,
        title=operations.name_of("monitor", detail.monitor),
        detail=detail,
    )


@router.get("/heartbeats/{heartbeat_id}")
async def heartbeat_page(request: Request, who: Signed, heartbeat_id: int) -> Response:
    ctx = request.app.state.ctx
    db = await request_sessions(request).read()
    detail = await detail_data.heartbeat_detail(
        db,
        team_id=who.team_id,
        heartbeat_id=heartbeat_id,
        public_base=public_base(request, ctx),
        now=ctx.clock.now(),
    )
    return _page(
        request,
        who,
        "heartbeat.html",
        series=detail.history,
        draw=state_chart_svg,
        title=detail.heartbeat.name,
        detail=detail,
        state_words=STATE_WORDS,
    )


@router.get("/targets/{target_id}")
async def target_page(request: Request, who: Signed, target_id: int) -> Response:
    db = await request_sessions(request).read()
    now = request.app.state.ctx.clock.now()
    collector_id = await db.scalar(
        select(CollectorTarget.collector_id).where(
            CollectorTarget.team_id == who.team_id, CollectorTarget.id == target_id
        )
    )
    if collector_id is None:
        raise NotFound("collector_target", target_id)
    detail = await detail_data.target_detail(
        db, team_id=who.team_id, collector_id=collector_id, target_id=target_id, now=now
    )
    series = await response_series(
        db, subject_type="collector_target", subject_id=target_id, now=now
    )
    return _page(
        request,
        who,
        "target.html",
        series=series,
        title=operations.target_name(detail.target),
        detail=detail,
    )


def actor(request: Request, who: Viewer) -> Actor:
    address = request.client.host if request.client else None
    return Actor("person", who.user.email, who.user.id, address)


async def act(
    request: Request, who: Viewer, kind: Kind, object_id: int, operation: Operation
) -> Response:
    """One button of an object's page: CSRF, role, then the change in one transaction."""
    form, write = await posted_writing(request, who, NEEDS[operation])
    page = f"/{operations.PATHS[kind]}/{object_id}"
    try:
        async with write.session.begin():
            (item,) = await operations.load(
                write.session, team_id=who.team_id, kind=kind, ids=[object_id]
            )
            if operation == "delete" and not confirmed(form):
                name = operations.name_of(kind, item)
                words, goes_with_it = operations.KIND_NAMES[kind].singular, GOES_WITH_IT[kind]
                return confirm_page(
                    request,
                    who,
                    section="overview",
                    question=f"Delete the {words} “{name}”?",
                    detail=goes_with_it,
                    action=f"{page}/delete",
                    button=f"Delete {words}",
                    fields=[],
                    back=page,
                )
            changed = await operations.apply(
                write, kind=kind, item=item, operation=operation, actor=actor(request, who)
            )
    except InvalidRequest as exc:
        return error_page(request, 422, "Not possible", str(exc))
    if operation == "delete":
        return RedirectResponse(f"/?{done_query('deleted')}", status_code=303)
    code = {"pause": "paused", "resume": "resumed", "check": "checking"}[operation]
    if not changed:
        code = "not_checked" if operation == "check" else "unchanged"
    return RedirectResponse(f"{page}?{done_query(code)}", status_code=303)


GOES_WITH_IT: Final[dict[Kind, str]] = {
    "monitor": "Its check history goes with it; its incidents stay, an open one is resolved.",
    "heartbeat": "Its ping log and history go with it; its incidents stay, an open one is "
    "resolved. Its ping URL stops working.",
    "target": "Its check history and metrics go with it; its incidents stay, an open one is "
    "resolved.",
}
"""What a kind's delete confirmation says goes with it."""


def _register(kind: Kind, operation: Operation) -> None:
    async def endpoint(request: Request, who: Signed, object_id: int) -> Response:
        return await act(request, who, kind, object_id, operation)

    endpoint.__name__ = f"{operation}_{kind}"
    router.add_api_route(
        f"/{operations.PATHS[kind]}/{{object_id}}/{operation}", endpoint, methods=["POST"]
    )


for _kind, _operations in OPERATIONS.items():
    for _operation in _operations:
        _register(_kind, _operation)
