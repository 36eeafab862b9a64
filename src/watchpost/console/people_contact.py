"""/team/people/{user_id}: a member of the team as those who must reach them see it: their
name, e-mail, role and phone numbers; how Watchpost tells them (what the team's urgencies
switch on: e-mail to their address, SMS and calls to their numbers through the instance's
services); when they are on call in the coming weeks; the escalation policies that name them.

What can change here is their name and their phone numbers (the numbers' form posts to
people_phones.py, which shows this page again beside a wrong number): a person changes their
own (any role), an admin anyone's in the team. Another team's person is a 404.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import oncall_days
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, read_db, write_db
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page
from watchpost.errors import NotFound
from watchpost.oncall.models import OnCallCalendar
from watchpost.people.roles import Action
from watchpost.policies.models import Policy
from watchpost.team_members import service as members
from watchpost.teams.models import User
from watchpost.urgencies.models import Urgency
from watchpost.validation import object_id

router = console_router()
NAME_LENGTH: Final = 255
MAX_POLICIES: Final = 1000
"""At most this many of the team's policies are read to find those naming the person."""
SHIFT_DAYS: Final = 14


def may_change(who: Viewer, user_id: int) -> bool:
    return who.user.id == user_id or who.may(Action.MANAGE_PEOPLE)


async def person_row(db: AsyncSession, user_id: int) -> User:
    """The person's users row, to change in db's transaction."""
    row = await db.get(User, user_id)
    if row is None:
        raise NotFound("user", user_id)
    return row


async def member_of(db: AsyncSession, who: Viewer, raw_id: str) -> tuple[User, str]:
    return await members.get(db, team_id=who.team_id, object_id=object_id(raw_id, "user"))


def _names_person(step: dict[str, Any], user: User) -> bool:
    return any(
        member.get("type") == "user"
        and (
            member.get("id") == user.id
            or str(member.get("email") or "").lower() == user.email.lower()
        )
        for member in step.get("step_members") or []
    )


async def contact_page(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    member: tuple[User, str],
    *,
    errors: dict[str, str] | None = None,
    typed: str | None = None,
    typed_phones: str | None = None,
) -> Response:
    user, role = member
    now = request.app.state.ctx.clock.now()
    settings = request.app.state.ctx.settings
    ways = {"email": True, "sms": False, "call": False}
    for urgency in await db.scalars(
        select(Urgency).where(Urgency.team_id == who.team_id).limit(MAX_POLICIES)
    ):
        ways["sms"] = ways["sms"] or urgency.sms
        ways["call"] = ways["call"] or urgency.call
    calendars = {
        cid: name
        for cid, name in await db.execute(
            select(OnCallCalendar.id, OnCallCalendar.name)
            .where(OnCallCalendar.team_id == who.team_id)
            .limit(MAX_POLICIES)
        )
    }
    until = now + timedelta(days=SHIFT_DAYS)
    found = await oncall_days.events_between(db, list(calendars), now, until)
    shifts = []
    email = user.email.lower()
    for calendar_id, listed in found.items():
        for piece in oncall_days.pieces(listed, now, until):
            if email in (e.lower() for e in piece.emails):
                shifts.append((piece, calendar_id, calendars[calendar_id]))
    shifts.sort(key=lambda item: item[0].starts)
    policies = [
        (policy_id, name)
        for policy_id, name, steps in await db.execute(
            select(Policy.id, Policy.name, Policy.steps)
            .where(Policy.team_id == who.team_id)
            .order_by(Policy.name, Policy.id)
            .limit(MAX_POLICIES)
        )
        if any(_names_person(step, user) for step in steps or [])
    ]
    return form_page(
        request,
        "person.html",
        who,
        errors=errors,
        section="team",
        title=user.name or user.email,
        person=user,
        role=role,
        ways=ways,
        sms_service=bool(settings.sms_url),
        call_service=bool(settings.call_url),
        shifts=shifts,
        policies=policies,
        shift_days=SHIFT_DAYS,
        may_change=may_change(who, user.id),
        typed=user.name if typed is None else typed,
        typed_phones="\n".join(user.phone_numbers) if typed_phones is None else typed_phones,
    )


@router.get("/team/people/{user_id}")
async def person_page(request: Request, who: Signed, user_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
    return await contact_page(request, who, db, await member_of(db, who, user_id))


@router.post("/team/people/{user_id}")
async def change_person(request: Request, who: Signed, user_id: str) -> Response:
    """A person's name: their own, or (admins) any member's."""
    form = await permitted_form(request, who, Action.READ)
    name = " ".join(str(form.get("name", "")).split())
    db = await write_db(request)
    async with db.begin():
        member = await member_of(db, who, user_id)
        user = member[0]
        if not may_change(who, user.id):
            who.require(Action.MANAGE_PEOPLE)  # the refusal page
        if not name or len(name) > NAME_LENGTH:
            message = "Enter the person's name" if not name else "Use a shorter name"
            return await contact_page(
                request, who, db, member, errors={"name": message}, typed=name[:NAME_LENGTH]
            )
        row = await person_row(db, user.id)
        before = row.name
        row.name = name
        details = {"from": before, "to": name}
        await audit(db, request, who, "person.renamed", None, ("user", row.id, row.email), details)
    return RedirectResponse(f"/team/people/{user.id}", status_code=303)
