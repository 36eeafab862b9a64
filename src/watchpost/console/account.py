"""The signed-in person's own page: their sessions (each can be ended, or all at once), their
password and two-factor sign-in; and switching the team they look at."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import Actor, record
from watchpost.console.auth import Viewer, checked_form, lifetimes, safe_next, write_db
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page
from watchpost.people import accounts, passwords, second_factor, sessions
from watchpost.people.models import ConsoleSession
from watchpost.teams.models import User

NAME_LENGTH: Final = 255
router = console_router()
PENDING_SECRET = "watchpost_totp_setup"  # noqa: S105 (a cookie name)
"""Cookie holding the encrypted TOTP secret being set up, until a code of it is entered."""


def actor(request: Request, who: Viewer) -> Actor:
    return Actor(
        "person", who.user.email, who.user.id, request.client.host if request.client else None
    )


Subject = tuple[str | None, int | None, str | None]
"""What an audit entry is about: its type, id and name."""
NO_SUBJECT: Final[Subject] = (None, None, None)
"""The subject of an entry about the person's own sign-in (sessions, password, two-factor)."""


async def audit(
    db: AsyncSession,
    request: Request,
    who: Viewer,
    action: str,
    now: datetime | None,
    subject: Subject = NO_SUBJECT,
    details: dict[str, Any] | None = None,
) -> None:
    """An audit entry of who's team: who did action on subject, in db's transaction, at now
    (None: the clock's now)."""
    subject_type, subject_id, name = subject
    await record(
        db,
        team_id=who.team_id,
        actor=actor(request, who),
        action=action,
        now=request.app.state.ctx.clock.now() if now is None else now,
        subject_type=subject_type,
        subject_id=subject_id,
        subject=name,
        details=details,
    )


@asynccontextmanager
async def own_row(request: Request, who: Viewer) -> AsyncIterator[tuple[AsyncSession, User]]:
    """The write session in a transaction, with the signed-in person's own row of it."""
    db = await write_db(request)
    async with db.begin():
        user = await db.get(User, who.user.id)
        assert user is not None
        yield db, user


async def account_page(
    request: Request, who: Viewer, *, errors: dict[str, str] | None = None, **extra: object
) -> Response:
    ctx = request.app.state.ctx
    db = await write_db(request)
    async with db.begin():
        live = await sessions.listed(
            db, user_id=who.user.id, now=ctx.clock.now(), lifetimes=lifetimes(request)
        )
    return form_page(
        request,
        "account.html",
        who,
        errors=errors,
        section="account",
        sessions=live,
        current=who.session.id,
        totp=second_factor.enabled(who.user),
        **extra,
    )


@router.get("/account")
async def account(request: Request, who: Signed) -> Response:
    if request.query_params.get("two-factor") == "required" and not second_factor.enabled(who.user):
        notice = (
            f"{who.team_name} requires two-factor sign-in: turn it on below to go on "
            "to the team's pages."
        )
        return await account_page(request, who, notice=notice)
    return await account_page(request, who)


@router.post("/account/sessions/{session_id}/revoke")
async def revoke(request: Request, who: Signed, session_id: int) -> Response:
    await checked_form(request, who)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        await sessions.revoke(db, session_id=session_id, user_id=who.user.id, now=now)
    return RedirectResponse("/account", status_code=303)


@router.post("/account/sessions/revoke-all")
async def revoke_all(request: Request, who: Signed) -> Response:
    """Signs out every browser, this one too."""
    await checked_form(request, who)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        await sessions.revoke_all(db, user_id=who.user.id, now=now)
        await audit(db, request, who, "sessions.revoked", now)
    return RedirectResponse("/login", status_code=303)


@router.post("/account/name")
async def change_name(request: Request, who: Signed) -> Response:
    """The person's name, as their teams see it (members, audit log)."""
    form = await checked_form(request, who)
    name = " ".join(str(form.get("name", "")).split())
    if not name or len(name) > NAME_LENGTH:
        problem = "Type your name" if not name else f"Use at most {NAME_LENGTH} characters"
        return await account_page(
            request, who, errors={"name": problem}, typed_name=name[:NAME_LENGTH]
        )
    if name != who.user.name:
        now = request.app.state.ctx.clock.now()
        async with own_row(request, who) as (db, user):
            user.name = name
            await audit(db, request, who, "person.renamed", now, ("person", user.id, user.email))
    return RedirectResponse("/account?done=saved", status_code=303)


@router.post("/account/password")
async def change_password(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    current = str(form.get("current", ""))
    new = str(form.get("password", ""))
    errors: dict[str, str] = {}
    if not await passwords.verify(who.user.password_hash, current):
        errors["current"] = "Your current password is not right"
    elif new != str(form.get("confirm", "")):
        errors["confirm"] = "The two new passwords are not the same"
    elif problem := passwords.problem(new):
        errors["password"] = problem
    if errors:
        return await account_page(request, who, errors=errors)
    now = request.app.state.ctx.clock.now()
    async with own_row(request, who) as (db, user):
        await accounts.set_password(db, user, new, now)  # ends every session, this one too
        await audit(db, request, who, "password.changed", now)
    return RedirectResponse("/login", status_code=303)


@router.post("/account/two-factor/start")
async def totp_start(request: Request, who: Signed) -> Response:
    await checked_form(request, who)
    ctx = request.app.state.ctx
    secret = second_factor.new_secret()
    response = await account_page(
        request,
        who,
        setup_secret=secret,
        setup_uri=second_factor.provisioning_uri(secret, who.user.email),
    )
    response.set_cookie(
        PENDING_SECRET,
        ctx.box.encrypt(secret),
        max_age=900,
        path="/account",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


def _pending_secret(request: Request) -> str:
    """The TOTP secret being set up, from its cookie ("" when absent or not sealed by us)."""
    sealed = request.cookies.get(PENDING_SECRET, "")
    try:
        return str(request.app.state.ctx.box.decrypt(sealed)) if sealed else ""
    except ValueError:
        return ""


@router.post("/account/two-factor/enable")
async def totp_enable(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    secret = _pending_secret(request)
    code = str(form.get("code", ""))
    if not secret or not second_factor.code_matches(secret, code, now):
        return await account_page(
            request,
            who,
            setup_secret=secret or None,
            setup_uri=second_factor.provisioning_uri(secret, who.user.email) if secret else None,
            errors={"code": "That code is not right: enter the code your app shows now"},
        )
    async with own_row(request, who) as (db, user):
        codes = await second_factor.enable(db, user=user, secret=secret, box=ctx.box, now=now)
        await audit(db, request, who, "two_factor.enabled", now)
    who.user = user  # the page shows two-factor sign-in on
    response = await account_page(request, who, recovery_codes=codes)
    response.delete_cookie(PENDING_SECRET, path="/account")
    return response


@router.post("/account/two-factor/disable")
async def totp_disable(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    async with own_row(request, who) as (db, user):
        ok = await second_factor.verify(
            db, user=user, code=str(form.get("code", "")), box=ctx.box, now=now
        )
        if ok:
            await second_factor.disable(db, user=user)
            await audit(db, request, who, "two_factor.disabled", now)
    if not ok:
        return await account_page(request, who, errors={"disable-code": "That code is not right"})
    return RedirectResponse("/account", status_code=303)


@router.post("/team/switch")
async def switch_team(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    wanted = str(form.get("team_id", ""))
    team = next((t for t in who.teams if str(t.team_id) == wanted), None)
    if team is not None:
        db = await write_db(request)
        async with db.begin():
            row = await db.get(ConsoleSession, who.session.id)
            if row is not None:
                row.team_id = team.team_id
    # Another team's page of an object would be a 404: land on the overview.
    target = safe_next(str(form.get("next", "/")))
    return RedirectResponse("/" if target.count("/") > 1 else target, status_code=303)
