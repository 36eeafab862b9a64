"""/team: the team's members (their roles, removing them) and invitations, for admins.

Who may give which role is `people.roles.may_grant` (admins every role but owner, owners
every role); the team's last owner stays (`people.accounts`). The tokens, settings and audit
log pages are beside this one (team_tokens.py, team_audit.py)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from fastapi import BackgroundTasks, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import mailer
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.paths import link_url
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.errors import NotFound
from watchpost.http.deps import request_sessions
from watchpost.people import accounts, second_factor
from watchpost.people.roles import ROLES, Action, may_grant
from watchpost.teams.models import Team, User
from watchpost.teams.service import team_members
from watchpost.validation import object_id

router = console_router()


def grantable(who: Viewer) -> list[str]:
    """The roles this person may give (most to least)."""
    return [role for role in reversed(ROLES) if may_grant(who.role, role)]


async def _members_page(
    request: Request, who: Viewer, *, status: int = 200, wrote: bool = False, **extra: Any
) -> Response:
    """The members page; wrote: the request has written (a request reads or writes, so
    the page is then read on its write session)."""
    if wrote:
        db = await write_db(request)
        async with db.begin():
            members = await team_members(db, team_id=who.team_id)
    else:
        members = await team_members(await request_sessions(request).read(), team_id=who.team_id)
    return render(
        request,
        "team.html",
        status=status,
        viewer=who,
        section="team",
        tab="members",
        members=members,
        roles=grantable(who),
        two_factor_on=second_factor.enabled,
        may_grant=lambda role: may_grant(who.role, role),
        **extra,
    )


@router.get("/team")
async def members_page(request: Request, who: Signed) -> Response:
    who.require(Action.MANAGE_PEOPLE)
    return await _members_page(request, who, form={"role": "viewer"})


async def _member(db: AsyncSession, who: Viewer, raw_id: str) -> tuple[User, str]:
    """The team's member the path names and their role; another team's person (or no id)
    is a 404."""
    user_id = object_id(raw_id, "member")
    role = await accounts.role_in(db, user_id=user_id, team_id=who.team_id)
    user = await db.get(User, user_id) if role is not None else None
    if user is None or role is None:
        raise NotFound("member", user_id)
    return user, role


@router.post("/team/members/{user_id}/role")
async def change_role(request: Request, who: Signed, user_id: str) -> Response:
    form = await permitted_form(request, who, Action.MANAGE_PEOPLE)
    new = str(form.get("role", ""))
    db = await write_db(request)
    async with db.begin():
        user, old = await _member(db, who, user_id)
        if new == old:
            return RedirectResponse("/team", status_code=303)
        if not (may_grant(who.role, old) and may_grant(who.role, new)):
            who.require(Action.MANAGE_OWNERS)  # only owners give or take owner
        changing = accounts.set_role(db, team_id=who.team_id, user_id=user.id, role=new)
        details = {"from": old, "to": new}
        error = await _changed(request, who, db, user, changing, "member.role_changed", details)
    return await _after_role_change(request, who, user.id, error)


async def _changed(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    user: User,
    change: Awaitable[object],
    action: str,
    details: dict[str, Any],
) -> str | None:
    """Awaits change (accounts') and writes its audit entry `action` about user: None, or
    the message of accounts' refusal (and no entry)."""
    try:
        await change
    except accounts.PeopleError as exc:
        return exc.message
    now = request.app.state.ctx.clock.now()
    await audit(db, request, who, action, now, ("user", user.id, user.email), details)
    return None


async def _after_role_change(
    request: Request, who: Viewer, user_id: int, error: str | None
) -> Response:
    """The members page again with the error beside the member's role, else on: to `/` for
    a person who just changed their own role (the team page may no longer be theirs)."""
    if error is not None:
        return await _members_page(
            request,
            who,
            status=422,
            wrote=True,
            errors={f"role-{user_id}": error},
            form={"role": "viewer"},
        )
    return RedirectResponse("/" if user_id == who.user.id else "/team", status_code=303)


@router.post("/team/members/{user_id}/remove")
async def remove(request: Request, who: Signed, user_id: str) -> Response:
    form = await permitted_form(request, who, Action.MANAGE_PEOPLE)
    db = await write_db(request)
    async with db.begin():
        user, role = await _member(db, who, user_id)
        if not may_grant(who.role, role):
            who.require(Action.MANAGE_OWNERS)
        if not confirmed(form):
            return confirm_page(
                request,
                who,
                section="team",
                question="Remove a member",
                detail=f"Remove {user.name} ({user.email}) from {who.team_name}? "
                "They lose access to the team at once.",
                action=f"/team/members/{user.id}/remove",
                back="/team",
                button=f"Remove {user.name}",
            )
        removing = accounts.remove_member(db, team_id=who.team_id, user_id=user.id)
        error = await _changed(request, who, db, user, removing, "member.removed", {"role": role})
    return await _after_role_change(request, who, user.id, error)


@router.post("/team/invitations")
async def invite(request: Request, who: Signed, background: BackgroundTasks) -> Response:
    """Adds the person (created if new) with the role, and makes an invitation link: mailed
    when the server sends e-mail, and shown on the answer once either way."""
    form = await permitted_form(request, who, Action.MANAGE_PEOPLE)
    typed = {name: str(form.get(name, "")).strip()[:320] for name in ("email", "name", "role")}
    if typed["role"] not in ROLES:
        errors = {"role": "Choose a role"}
    elif not may_grant(who.role, typed["role"]):
        errors = {"role": f"Only owners can invite an {typed['role']}"}
    else:
        errors = {}
    if errors:
        return await _members_page(request, who, status=422, errors=errors, form=typed)
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        team = await db.get(Team, who.team_id)
        assert team is not None
        try:
            user, _ = await accounts.add_person(
                db, team=team, email=typed["email"], name=typed["name"], role=typed["role"], now=now
            )
        except accounts.PeopleError as exc:
            errors = {exc.field or "email": exc.message}
        else:
            token = await accounts.make_link(
                db, user=user, purpose="invite", now=now, team_id=team.id, role=typed["role"]
            )
            subject = ("user", user.id, user.email)
            await audit(db, request, who, "member.invited", now, subject, {"role": typed["role"]})
    if errors:
        return await _members_page(request, who, status=422, wrote=True, errors=errors, form=typed)
    url = link_url(ctx.settings.public_base or str(request.base_url), token)
    mailed = ctx.settings.smtp_url is not None
    if mailed:
        background.add_task(
            mailer.send_invitation,
            ctx.settings,
            user.email,
            team=team.name,
            role=typed["role"],
            inviter=who.user.name,
            url=url,
        )
    return render(
        request,
        "team_invited.html",
        viewer=who,
        section="team",
        person=user,
        role=typed["role"],
        url=url,
        mailed=mailed,
    )
