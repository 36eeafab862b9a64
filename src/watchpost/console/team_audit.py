"""/team/audit, the team's audit log (admins), newest first and paged with the page and its
size in the URL; and /team/settings (owners): the settings that can lock people out, today
"require two-factor sign-in" (enforced by console/auth.py's viewer())."""

from __future__ import annotations

from typing import Annotated, Final

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from watchpost.audit import service as audit
from watchpost.audit.service import record
from watchpost.console.auth import Viewer, checked_form, viewer, write_db
from watchpost.console.errors import ConsoleRoute
from watchpost.console.team import actor
from watchpost.console.web import render
from watchpost.http.deps import request_sessions
from watchpost.listing import PageRequest
from watchpost.people import second_factor
from watchpost.people.roles import Action
from watchpost.teams.models import Team
from watchpost.teams.service import team_members

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
Signed = Annotated[Viewer, Depends(viewer)]
PAGE_SIZES: Final = (25, 50, 100, 250)
DEFAULT_SIZE: Final = 50


def _number(raw: str | None, default: int, high: int) -> int:
    """A page number or size from the URL; anything else is the default (a page of the
    console is not an API: a bad value shows the first page, not an error)."""
    text = (raw or "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        return default
    return max(1, min(int(text), high))


@router.get("/team/audit")
async def audit_page(request: Request, who: Signed) -> Response:
    who.require(Action.MANAGE_PEOPLE)
    query = request.query_params
    size = _number(query.get("per_page"), DEFAULT_SIZE, PAGE_SIZES[-1])
    paging = PageRequest(
        page=_number(query.get("page"), 1, 10**9),
        per_page=size,
        base_url=request.url.path,
        other_params=(),
    )
    db = await request_sessions(request).read()
    page = await audit.page(db, team_id=who.team_id, paging=paging)
    return render(
        request,
        "team_audit.html",
        viewer=who,
        section="team",
        tab="audit",
        events=page.data,
        links=page.links,
        page_number=paging.page,
        per_page=size,
        sizes=sorted({*PAGE_SIZES, size}),
    )


async def _settings_page(request: Request, who: Viewer, *, notice: str | None = None) -> Response:
    db = await request_sessions(request).read()
    team = await db.get(Team, who.team_id)
    assert team is not None
    members = await team_members(db, team_id=who.team_id)
    without = [m for m in members if not second_factor.enabled(m.user)]
    return render(
        request,
        "team_settings.html",
        viewer=who,
        section="team",
        tab="settings",
        team=team,
        without=without,
        me_without=not second_factor.enabled(who.user),
        notice=notice,
    )


@router.get("/team/settings")
async def settings_page(request: Request, who: Signed) -> Response:
    who.require(Action.MANAGE_OWNERS)
    saved = request.query_params.get("saved") == "1"
    return await _settings_page(request, who, notice="Settings saved." if saved else None)


@router.post("/team/settings")
async def save_settings(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    who.require(Action.MANAGE_OWNERS)
    wanted = str(form.get("require_two_factor", "")) == "on"
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        team = await db.get(Team, who.team_id)
        assert team is not None
        if team.require_two_factor != wanted:
            team.require_two_factor = wanted
            await record(
                db,
                team_id=team.id,
                actor=actor(request, who),
                action="team.two_factor_required" if wanted else "team.two_factor_not_required",
                now=now,
                subject_type="team",
                subject_id=team.id,
                subject=team.name,
            )
    return RedirectResponse("/team/settings?saved=1", status_code=303)
