"""Signing in and out: e-mail and password, the second factor, one-time links (first
password, reset, invitation), forgotten passwords.

A wrong password and an unknown e-mail get the same page in the same time (the unknown one
is checked against a dummy hash). Attempts are limited per client address and per e-mail
address (RateLimits.login_*): the 429 page says so and carries Retry-After.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import RedirectResponse, Response

from watchpost.audit.service import Actor, record
from watchpost.console import mailer
from watchpost.console.auth import (
    COOKIE,
    lifetimes,
    pending_second_factor,
    read_form,
    safe_next,
    secure_cookies,
    write_db,
)
from watchpost.console.errors import ConsoleRoute
from watchpost.console.paths import LINK_PATH, link_url
from watchpost.console.web import render
from watchpost.errors import TooManyRequests
from watchpost.people import accounts, passwords, second_factor, sessions
from watchpost.people.models import ConsoleSession
from watchpost.ratelimit import RateLimiter
from watchpost.teams.models import Team, User

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
WRONG = "Wrong e-mail address or password."


def _limit(request: Request, limiter: RateLimiter | None, key: str) -> None:
    if limiter is None:
        return
    wait = limiter.acquire(key, request.app.state.ctx.clock.now().timestamp())
    if wait:
        raise TooManyRequests(wait, "Too many sign-in attempts")


def limit_attempt(request: Request, email: str | None) -> None:
    """Counts a sign-in attempt from the client's address and for the e-mail address."""
    limits = request.app.state.ctx.limits
    _limit(request, limits.login_addresses, request.client.host if request.client else "")
    if email:
        _limit(request, limits.login_accounts, accounts.normal_email(email))


def _too_many(request: Request, email: str, template: str) -> Response | None:
    """Counts the attempt (limit_attempt): the 429 page `template` when it is one too many,
    else None."""
    try:
        limit_attempt(request, email)
    except TooManyRequests as exc:
        response = render(
            request,
            template,
            status=429,
            error="Too many attempts. Wait a minute, then try again.",
        )
        response.headers.update(exc.headers or {})
        return response
    return None


def client(request: Request) -> str:
    return request.headers.get("user-agent", "")[:255]


def address(request: Request) -> str | None:
    return request.client.host if request.client else None


def _oidc_enabled(request: Request) -> bool:
    return bool(request.app.state.ctx.settings.oidc_issuer)


def _login_page(request: Request, *, status: int = 200, **context: Any) -> Response:
    return render(
        request,
        "login.html",
        status=status,
        sso=_oidc_enabled(request),
        sso_label=request.app.state.ctx.settings.oidc_button,
        next=safe_next(request.query_params.get("next")),
        **context,
    )


async def begin_session(
    request: Request,
    user: User,
    *,
    second_factor_done: bool,
    via: str,
    next_path: str | None = None,
) -> Response:
    """Starts a session for user (in its own transaction) and sends them on."""
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        teams = await accounts.teams_of(db, user.id)
        needs = second_factor.enabled(user) and not second_factor_done
        token = await sessions.start(
            db,
            user=user,
            team_id=teams[0].team_id if teams else None,
            second_factor_done=not needs,
            client=client(request),
            now=now,
            lifetimes=lifetimes(request),
        )
        if teams and not needs:
            actor = Actor("person", user.email, user.id, address(request))
            await record(
                db,
                team_id=teams[0].team_id,
                actor=actor,
                action="session.created",
                now=now,
                details={"via": via},
            )
    wanted = next_path if next_path is not None else request.query_params.get("next")
    target = "/login/two-factor" if needs else safe_next(wanted)
    response = RedirectResponse(target, status_code=303)
    set_cookie(request, response, token)
    return response


def set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=math.ceil(lifetimes(request).absolute.total_seconds()),
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request),
    )


@router.get("/login")
async def login_form(request: Request) -> Response:
    return _login_page(request)


@router.post("/login")
async def login(request: Request) -> Response:
    form = await read_form(request)
    email = str(form.get("email", ""))[:320].strip()
    password = str(form.get("password", ""))
    try:
        limit_attempt(request, email)
    except TooManyRequests as exc:
        response = _login_page(
            request,
            status=429,
            email=email,
            error="Too many sign-in attempts. Wait a minute, then try again.",
        )
        response.headers.update(exc.headers or {})
        return response
    db = await write_db(request)
    async with db.begin():
        user = await accounts.by_email(db, email) if email else None
    ok = await passwords.verify(user.password_hash if user else None, password)
    if not ok or user is None:
        return _login_page(request, status=401, email=email, error=WRONG)
    return await begin_session(request, user, second_factor_done=False, via="password")


@router.get("/login/two-factor")
async def two_factor_form(request: Request) -> Response:
    session, _ = await pending_second_factor(request)
    if session.second_factor_done:
        return RedirectResponse("/", status_code=303)
    return render(request, "two_factor.html")


@router.post("/login/two-factor")
async def two_factor(request: Request) -> Response:
    session, user = await pending_second_factor(request)
    form = await read_form(request)
    refused = _too_many(request, user.email, "two_factor.html")
    if refused is not None:
        return refused
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        fresh = await db.get(User, user.id)
        row = await db.get(ConsoleSession, session.id)
        assert fresh is not None and row is not None
        code = str(form.get("code", ""))[:64]
        if not await second_factor.verify(db, user=fresh, code=code, box=ctx.box, now=now):
            ok = False
        else:
            ok = True
            row.second_factor_done = True
            if row.team_id is not None:
                await record(
                    db,
                    team_id=row.team_id,
                    now=now,
                    action="session.created",
                    actor=Actor("person", fresh.email, fresh.id, address(request)),
                    details={"via": "password and second factor"},
                )
    if not ok:
        return render(request, "two_factor.html", status=401, error="That code is not right.")
    return RedirectResponse("/", status_code=303)


@router.post("/logout")
async def logout(request: Request) -> Response:
    await read_form(request)  # the cross-site check: nobody is signed out by another site
    token = request.cookies.get(COOKIE, "")
    ctx = request.app.state.ctx
    db = await write_db(request)
    async with db.begin():
        found = await sessions.find(db, token, now=ctx.clock.now(), lifetimes=lifetimes(request))
        if found is not None:
            await sessions.revoke(
                db, session_id=found[0].id, user_id=found[1].id, now=ctx.clock.now()
            )
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get(LINK_PATH + "/{token}")
async def link_form(request: Request, token: str) -> Response:
    db = await write_db(request)
    async with db.begin():
        try:
            link, user = await accounts.open_link(db, token, request.app.state.ctx.clock.now())
        except accounts.PeopleError as exc:
            return render(request, "link.html", status=410, gone=exc.message)
        team = await db.get(Team, link.team_id) if link.team_id else None
    return render(
        request,
        "link.html",
        person=user,
        purpose=link.purpose,
        team=team.name if team else None,
        needs_password=user.password_hash is None or link.purpose != "invite",
    )


@router.post(LINK_PATH + "/{token}")
async def use_link(request: Request, token: str) -> Response:
    form = await read_form(request)
    password = str(form.get("password", ""))
    confirm = str(form.get("confirm", ""))
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        try:
            link, user = await accounts.open_link(db, token, now)
        except accounts.PeopleError as exc:
            return render(request, "link.html", status=410, gone=exc.message)
        needs = user.password_hash is None or link.purpose != "invite"
        problem = None
        if needs and password != confirm:
            problem = "The two passwords are not the same"
        elif needs:
            problem = passwords.problem(password)
        if problem is None:
            user, joined = await accounts.use_link(
                db, token, password=password if needs else None, now=now
            )
            for team in await accounts.teams_of(db, user.id):
                if joined is None or team.team_id == joined:
                    await record(
                        db,
                        team_id=team.team_id,
                        now=now,
                        action="invitation.accepted"
                        if link.purpose == "invite"
                        else "password.set",
                        actor=Actor("person", user.email, user.id, address(request)),
                    )
    if problem is not None:
        return render(
            request,
            "link.html",
            status=422,
            person=user,
            purpose=link.purpose,
            needs_password=True,
            error=problem,
        )
    return await begin_session(request, user, second_factor_done=False, via="one-time link")


@router.get("/login/forgot")
async def forgot_form(request: Request) -> Response:
    return render(request, "forgot.html")


@router.post("/login/forgot")
async def forgot(request: Request, background: BackgroundTasks) -> Response:
    """The same page whether the address is known or not; the e-mail leaves after the answer
    (sending it must not make the known address's answer slower)."""
    form = await read_form(request)
    email = str(form.get("email", ""))[:320].strip()
    refused = _too_many(request, email, "forgot.html")
    if refused is not None:
        return refused
    ctx = request.app.state.ctx
    db = await write_db(request)
    async with db.begin():
        user = await accounts.by_email(db, email) if email else None
        token = None
        if user is not None:
            token = await accounts.make_link(db, user=user, purpose="reset", now=ctx.clock.now())
    if user is not None and token is not None:
        url = link_url(ctx.settings.public_base or str(request.base_url), token)
        background.add_task(mailer.send_reset, ctx.settings, user.email, user.name, url)
    return render(request, "forgot.html", sent=True, email=email)
