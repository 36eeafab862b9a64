"""/team/settings (owners): the team's name, "require two-factor sign-in" (enforced by
console/auth.py's viewer()), and, read-only, how single sign-on is configured for the team
and how long its data is kept (server settings and each source's own retention)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors.models import Collector
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page
from watchpost.history.service import DAILY_RETENTION, HOURLY_RETENTION, RAW_RETENTION
from watchpost.http.deps import request_sessions
from watchpost.people import second_factor
from watchpost.people.roles import Action
from watchpost.settings import Settings
from watchpost.sources.models import Source
from watchpost.teams.models import Team
from watchpost.teams.service import team_members

router = console_router()
NAME_LENGTH: Final = 255
SHOWN_SOURCES: Final = 50
"""Sources and collectors listed with their retention; the rest are counted."""


@dataclass(frozen=True)
class Sso:
    """Single sign-on as the server is configured, for one team (never the secret)."""

    issuer: str
    client_id: str
    button: str
    grants: list[tuple[str, str]]
    """(e-mail domain, role) of the domains that join this team."""


@dataclass(frozen=True)
class Kept:
    """What is kept how long: (what, for how long) rows, and the sources' own figures."""

    server: list[tuple[str, str]]
    sources: list[tuple[str, str, int, int]]
    """(kind, name, logs days, metrics days)."""
    more_sources: int


def _sso(settings: Settings, team_name: str) -> Sso | None:
    if not settings.oidc_issuer:
        return None
    grants = [
        (domain, role)
        for domain, named in settings.oidc_team_map.items()
        for team, role in named
        if team.casefold() == team_name.casefold()
    ]
    return Sso(settings.oidc_issuer, settings.oidc_client_id or "", settings.oidc_button, grants)


def _days(days: float) -> str:
    return "1 day" if days == 1 else f"{days:g} days"


async def _kept(db: AsyncSession, settings: Settings, team_id: int) -> Kept:
    server = [
        ("Every check's result (response time, status, error)", "24 hours"),
        ("Hourly figures (availability, response times)", _days(HOURLY_RETENTION.days)),
        ("Daily figures", _days(DAILY_RETENTION.days)),
        (
            "Webhook, e-mail and chat deliveries and their attempts",
            _days(settings.delivery_retention_days),
        ),
        ("A heartbeat's pings", "its latest 100"),
        ("Incidents and their timelines", "until deleted"),
        ("This audit log", "as long as the team exists"),
    ]
    assert RAW_RETENTION.total_seconds() == 86400  # the first row's words
    rows: list[tuple[str, str, int, int]] = []
    counted = 0
    for kind, model in (("Source", Source), ("Collector", Collector)):
        found = await db.execute(
            select(model.name, model.logs_retention, model.metrics_retention)
            .where(model.team_id == team_id)
            .order_by(model.name, model.id)
            .limit(SHOWN_SOURCES)
        )
        rows += [(kind, name, logs, metrics) for name, logs, metrics in found.tuples()]
        counted += int(
            await db.scalar(select(func.count()).select_from(model).where(model.team_id == team_id))
            or 0
        )
    return Kept(server, rows, counted - len(rows))


def _name_error(name: str) -> str | None:
    if not name:
        return "Name the team"
    if len(name) > NAME_LENGTH:
        return f"Use at most {NAME_LENGTH} characters"
    return None


async def _page(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    *,
    errors: dict[str, str] | None = None,
    typed: str | None = None,
    notice: str | None = None,
) -> Response:
    team = await db.get(Team, who.team_id)
    assert team is not None
    members = await team_members(db, team_id=who.team_id)
    without = [m for m in members if not second_factor.enabled(m.user)]
    settings = request.app.state.ctx.settings
    return form_page(
        request,
        "team_settings.html",
        who,
        errors=errors,
        section="team",
        tab="settings",
        team=team,
        typed=team.name if typed is None else typed,
        without=without,
        me_without=not second_factor.enabled(who.user),
        sso=_sso(settings, team.name),
        kept=await _kept(db, settings, who.team_id),
        notice=notice,
    )


@router.get("/team/settings")
async def settings_page(request: Request, who: Signed) -> Response:
    who.require(Action.MANAGE_OWNERS)
    saved = request.query_params.get("saved") == "1"
    db = await request_sessions(request).read()
    return await _page(request, who, db, notice="Settings saved." if saved else None)


@router.post("/team/settings")
async def save_settings(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.MANAGE_OWNERS)
    wanted = str(form.get("require_two_factor", "")) == "on"
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        team = await db.get(Team, who.team_id)
        assert team is not None
        if team.require_two_factor != wanted:
            team.require_two_factor = wanted
            action = "team.two_factor_required" if wanted else "team.two_factor_not_required"
            await audit(db, request, who, action, now, ("team", team.id, team.name))
    return RedirectResponse("/team/settings?saved=1", status_code=303)


@router.post("/team/name")
async def rename(request: Request, who: Signed) -> Response:
    """The team's new name: unique among teams (any case), as the command line and single
    sign-on name teams by it."""
    form = await permitted_form(request, who, Action.MANAGE_OWNERS)
    name = " ".join(str(form.get("name", "")).split())
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        team = await db.get(Team, who.team_id, with_for_update=True)
        assert team is not None
        problem = _name_error(name)
        if problem is None and name != team.name:
            taken = await db.scalar(
                select(Team.id).where(func.lower(Team.name) == name.lower(), Team.id != team.id)
            )
            problem = "Another team has this name" if taken is not None else None
        if problem is not None:
            return await _page(request, who, db, errors={"name": problem}, typed=name[:NAME_LENGTH])
        if name != team.name:
            details = {"from": team.name, "to": name}
            await audit(db, request, who, "team.renamed", now, ("team", team.id, name), details)
            team.name = name
    return RedirectResponse("/team/settings?saved=1", status_code=303)
