"""Every console route, as one list the app adds before the status pages' fallback."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response, StreamingResponse
from fastapi.routing import APIRoute

from watchpost.console import (
    account,
    bulk,
    details,
    editing,
    editing_more,
    incidents,
    live,
    login,
    overview,
    sso,
    team,
    team_audit,
    team_tokens,
)
from watchpost.console import logs as console_logs
from watchpost.console import metrics as console_metrics
from watchpost.console import saved_searches as console_saved_searches
from watchpost.console import sources as console_sources
from watchpost.console.auth import Viewer, viewer
from watchpost.console.errors import ConsoleRoute
from watchpost.console.paths import LINK_PATH
from watchpost.console.web import STATIC_PATH, static_file

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
SECRET_PATH_PREFIXES = (LINK_PATH + "/",)


@router.get(STATIC_PATH + "/{name}")
async def static(name: str, request: Request) -> Response:
    return static_file(name, request)


@router.get("/console/events")
async def events(request: Request, who: Annotated[Viewer, Depends(viewer)]) -> Response:
    return StreamingResponse(
        live.events(request, who.team_id),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def console_routes() -> list[APIRoute]:
    routers = (
        router,
        login.router,
        sso.router,
        account.router,
        overview.router,
        incidents.router,
        editing.router,
        editing_more.router,
        team.router,
        team_tokens.router,
        team_audit.router,
        details.router,  # after editing: /monitors/new is the form's
        bulk.router,
        console_sources.router,
        console_logs.router,
        console_saved_searches.router,
        console_metrics.router,
    )
    return [route for r in routers for route in r.routes if isinstance(route, APIRoute)]
