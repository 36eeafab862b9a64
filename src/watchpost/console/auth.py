"""Who is looking: the signed-in person of a request, their team and role, and the checks
every console action makes on the server (sign-in, role, CSRF).

CSRF: every state-changing request is refused (403, nothing changed) when the browser says
it comes from another site (`Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` that
is not the server's own), and a signed-in form must also carry the session's token (a
keyed hash of the session's secret: a page of another site cannot read it). The session
cookie is SameSite=Lax as well.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import timedelta
from hashlib import sha256
from typing import Final
from urllib.parse import quote, urlsplit

from fastapi import Request
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData

from watchpost.http.deps import request_sessions
from watchpost.people import accounts, second_factor, sessions
from watchpost.people.models import ConsoleSession
from watchpost.people.roles import Action, allowed
from watchpost.teams.models import Team, User
from watchpost.writing import Writing

COOKIE: Final = "watchpost_session"
MAX_FORM_FIELDS: Final = 20_000  # a bulk action may name thousands of monitors
MAX_FORM_BYTES: Final = 1024 * 1024


class SignInNeeded(Exception):
    """No live session: the person is sent to /login (and back afterwards)."""


class SecondFactorNeeded(Exception):
    """Signed in with a password, the second factor not given yet."""


class Refused(Exception):
    """A 403: the role does not allow it, or a cross-site request."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NoTeam(Exception):
    """Signed in, but a member of no team."""


class TwoFactorRequired(Exception):
    """The team requires two-factor sign-in and the person has not turned it on: they are
    sent to their account page to do so."""


TWO_FACTOR_FREE: Final = ("/account", "/login", "/logout", "/team/switch")
"""Paths a person whose team requires two-factor sign-in still reaches without it: where it
is turned on, signing in and out, and another team."""


@dataclass
class Viewer:
    """The signed-in person and the team they are looking at."""

    user: User
    session: ConsoleSession
    team_id: int
    team_name: str
    role: str
    teams: list[accounts.TeamRole] = field(default_factory=list)

    @property
    def csrf(self) -> str:
        return hmac.new(self.session.token_hash.encode(), b"csrf", sha256).hexdigest()[:40]

    def may(self, action: Action | str) -> bool:
        return allowed(self.role, Action(action))

    def require(self, action: Action) -> None:
        if not self.may(action):
            raise Refused(f"Your role in {self.team_name} ({self.role}) does not allow this.")


def lifetimes(request: Request) -> sessions.Lifetimes:
    settings = request.app.state.ctx.settings
    return sessions.Lifetimes(
        idle=timedelta(seconds=settings.session_idle_timeout),
        absolute=timedelta(seconds=settings.session_lifetime),
    )


def secure_cookies(request: Request) -> bool:
    base = request.app.state.ctx.settings.public_base or ""
    return base.startswith("https://")


async def _session_of(request: Request) -> tuple[ConsoleSession, User] | None:
    token = request.cookies.get(COOKIE, "")
    if not token:
        return None
    db = await request_sessions(request).read()
    now = request.app.state.ctx.clock.now()
    found = await sessions.find(db, token, now=now, lifetimes=lifetimes(request))
    if found is not None and sessions.needs_touch(found[0], now):
        async with request.app.state.ctx.db.write_sessions() as write, write.begin():
            await sessions.touch(write, found[0].id, now)
    return found


async def pending_second_factor(request: Request) -> tuple[ConsoleSession, User]:
    """A session waiting for its second factor (the two-factor page's own check)."""
    found = await _session_of(request)
    if found is None:
        raise SignInNeeded()
    return found


async def viewer(request: Request) -> Viewer:
    """The signed-in person (dependency of every console page but sign-in's)."""
    found = await _session_of(request)
    if found is None:
        raise SignInNeeded()
    session, user = found
    if not session.second_factor_done:
        raise SecondFactorNeeded()
    db = await request_sessions(request).read()
    teams = await accounts.teams_of(db, user.id)
    if not teams:
        raise NoTeam()
    current = next((t for t in teams if t.team_id == session.team_id), teams[0])
    if not second_factor.enabled(user) and not request.url.path.startswith(TWO_FACTOR_FREE):
        required = select(Team.require_two_factor).where(Team.id == current.team_id)
        if await db.scalar(required):  # a query only for people without a second factor
            raise TwoFactorRequired()
    return Viewer(user, session, current.team_id, current.team_name, current.role, teams)


def _same_origin(request: Request) -> bool:
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # neither header (an old browser, a script): the form token decides
    if origin == "null":
        return False
    parts = urlsplit(origin)
    host = request.headers.get("host", "")
    own = {host}
    public = request.app.state.ctx.settings.public_base
    if public:
        own.add(urlsplit(public).netloc)
    return parts.netloc in own


async def read_form(request: Request) -> FormData:
    """The posted form (bounded), after the cross-site check."""
    if not _same_origin(request):
        raise Refused("This request came from another site and was refused.")
    return await request.form(max_files=0, max_fields=MAX_FORM_FIELDS, max_part_size=MAX_FORM_BYTES)


async def checked_form(request: Request, who: Viewer) -> FormData:
    """A signed-in person's form: same origin and carrying the session's CSRF token."""
    form = await read_form(request)
    sent = str(form.get("csrf", ""))
    if not hmac.compare_digest(sent.encode(), who.csrf.encode()):
        raise Refused("This form has expired or came from another site. Reload the page.")
    return form


async def permitted_form(request: Request, who: Viewer, action: Action) -> FormData:
    """checked_form, then the server's check that who may do action (Refused if not)."""
    form = await checked_form(request, who)
    who.require(action)
    return form


def login_redirect(request: Request) -> str:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return "/login" if target == "/" else f"/login?next={quote(target, safe='')}"


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a path of this server only."""
    text = (value or "").strip()
    if not text.startswith("/") or text.startswith("//") or "\\" in text or "\n" in text:
        return "/"
    return text


async def read_db(request: Request, who: Viewer, action: Action) -> AsyncSession:
    """The request's read session, once the server has checked that who may do action."""
    who.require(action)
    return await request_sessions(request).read()


async def write_db(request: Request) -> AsyncSession:
    return await request_sessions(request).write()


async def posted_writing(request: Request, who: Viewer, action: Action) -> tuple[FormData, Writing]:
    """permitted_form, and who's Writing in the request's write session (now by the app's
    clock): what a form changing the team's objects through a domain's Writing starts with."""
    form = await permitted_form(request, who, action)
    return form, Writing.of(await write_db(request), who, request.app.state.ctx)
