"""`/`: the sign-in page when signed out, the team's overview when signed in."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from watchpost.console.auth import SignInNeeded, viewer
from watchpost.console.errors import ConsoleRoute
from watchpost.console.web import render

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)


@router.get(
    "/",
    include_in_schema=True,
    tags=["console"],
    summary="The console: the sign-in page, or the team's overview when signed in",
    response_class=HTMLResponse,
    responses={200: {"description": "An HTML page", "content": {"text/html": {}}}},
)
async def home(request: Request) -> Response:
    try:
        who = await viewer(request)
    except SignInNeeded:
        return render(request, "login.html", sso=False, next="/")
    return render(request, "overview.html", viewer=who, section="overview", live="/console/events")
