"""On-call calendars as objects: found by id or `default`, shown with the people on call now,
made, renamed, deleted. No HTTP here.

Every team has a default calendar, made the first time any on-call route (or a
`current_on_call` member) needs it; it cannot be deleted. A calendar an escalation policy
names (a `current_on_call` member with its id) cannot be deleted either (409) until the
policy stops naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from sqlalchemy import false, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.base import Base
from watchpost.db.queries import added, team_object, team_rows
from watchpost.errors import Conflict, InvalidRequest
from watchpost.listing import Page, PageRequest, Resource, paginate, resource
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallCalendar
from watchpost.oncall.schemas import CalendarCreate, CalendarUpdate
from watchpost.problems import team_name_problems
from watchpost.teams.models import User
from watchpost.teams.service import Principal
from watchpost.validation import object_id

TYPE: Final = "on_call_calendar"
DEFAULT: Final = "default"
"""The path id naming the team's default calendar."""


async def find(db: AsyncSession, team_id: int, raw_id: str, *, now: datetime) -> OnCallCalendar:
    """The team's calendar a path id names (`default`: its default calendar), else 404. The
    default calendar is made first if the team has none. Call in a write transaction."""
    default = await on_call.default_id(db, team_id, now=now)
    found = default if raw_id == DEFAULT else object_id(raw_id, TYPE)
    return await team_object(db, OnCallCalendar, TYPE, team_id=team_id, object_id=found)


def _checked(data: CalendarCreate | CalendarUpdate, caller: Principal, *, default: bool) -> None:
    """team_name must be the token's team; default_calendar (read-only) must say what the
    calendar is."""
    problems = team_name_problems(data.team_name, caller.team_name)
    if data.default_calendar is not None and data.default_calendar != default:
        problems.append(("default_calendar", "default_calendar is read-only"))
    if problems:
        raise InvalidRequest(problems)


def user_resource(user: User) -> Resource:
    first, _, last = user.name.strip().partition(" ")
    attributes = {
        "first_name": first,
        "last_name": last.strip(),
        "email": user.email,
        "phone_numbers": list(user.phone_numbers or []),
    }
    return resource("user", user.id, attributes)


async def documents(
    db: AsyncSession, calendars: Sequence[OnCallCalendar], team_name: str, now: datetime
) -> tuple[list[Resource], list[Resource]]:
    """The calendars as the API shows them, with the people on call at `now`, and those
    people (`included`)."""
    emails = await on_call.emails_on_call(db, [c.id for c in calendars], now)
    team_ids = {c.team_id for c in calendars}
    everyone = {e for found in emails.values() for e in found}
    people: dict[str, User] = {}
    for team_id in team_ids:
        for user in await on_call.members(db, team_id, everyone):
            people[user.email.lower()] = user
    shown: list[Resource] = []
    included: dict[int, Resource] = {}
    for calendar in calendars:
        users = [people[e.lower()] for e in emails[calendar.id] if e.lower() in people]
        attributes = {
            "name": calendar.name,
            "default_calendar": calendar.default_of_team_id is not None,
            "team_name": team_name,
        }
        refs = [{"id": str(u.id), "type": "user", "meta": {"email": u.email}} for u in users]
        shown.append(resource(TYPE, calendar.id, attributes, {"on_call_users": {"data": refs}}))
        for user in users:
            included.setdefault(user.id, user_resource(user))
    return shown, list(included.values())


async def page(
    db: AsyncSession, caller: Principal, paging: PageRequest, team_name: str | None
) -> Page[OnCallCalendar]:
    """The team's calendars, default first (`team_name`: another team's name lists none)."""
    stmt = team_rows(OnCallCalendar, team_id=caller.team_id)
    if team_name is not None and team_name.strip() != caller.team_name:
        stmt = stmt.where(false())
    return await paginate(db, stmt, paging, order_by=OnCallCalendar.id)


async def make(
    db: AsyncSession, caller: Principal, data: CalendarCreate, *, now: datetime
) -> OnCallCalendar:
    _checked(data, caller, default=False)
    calendar = OnCallCalendar(
        team_id=caller.team_id,
        name=data.name,
        on_call_user_ids=[],
        created_at=now,
        updated_at=now,
    )
    return await added(db, calendar)


async def change(
    db: AsyncSession,
    caller: Principal,
    calendar: OnCallCalendar,
    data: CalendarUpdate,
    *,
    now: datetime,
) -> None:
    _checked(data, caller, default=calendar.default_of_team_id is not None)
    if data.name is not None:
        calendar.name = data.name
    calendar.updated_at = calendar.next_check_at = now  # a look now, as after every edit
    await db.flush()


def names_calendar(steps: Any, calendar_id: int) -> bool:
    """Whether a policy's steps name the calendar (a `current_on_call` member with its id)."""
    return any(
        member.get("type") == "current_on_call" and member.get("id") == calendar_id
        for step in steps or []
        for member in step.get("step_members") or []
    )


async def remove(db: AsyncSession, calendar: OnCallCalendar) -> None:
    """Delete the calendar and its events: not the default (422), nor one a policy names
    (409)."""
    if calendar.default_of_team_id is not None:
        raise InvalidRequest([(None, "The default on-call calendar cannot be deleted")])
    # The policies table, read without importing its package (it imports this one).
    policies = Base.metadata.tables["policies"]
    rows = await db.execute(
        select(policies.c.id, policies.c.steps).where(policies.c.team_id == calendar.team_id)
    )
    naming = sorted(policy_id for policy_id, steps in rows if names_calendar(steps, calendar.id))
    if naming:
        listed = ", ".join(str(policy_id) for policy_id in naming)
        raise Conflict(
            f"On-call calendar {calendar.id} is named by the current_on_call members of "
            f"escalation policy {listed}: change the policy first"
        )
    await db.delete(calendar)
    await db.flush()
