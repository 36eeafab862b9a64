"""/on-call: the team's on-call calendars with who is on call now and next; a calendar's
page with four weeks day by day (from today, or from the day `?from=` names, moved by
Earlier / Later: oncall_days.position), its rotation (shown, and set with a form) and
overrides ("I take Friday"), and its shifts one by one. Creating, renaming and deleting a
calendar are in oncall_calendars.py; editing and deleting a single shift in oncall_events.py.

Everything goes through the API's on-call code: rotation.set_rotation and events.make/remove
check and store; who is on call is oncall/now.py's rule (through
oncall_days.py). Times are typed and shown in UTC. Reading needs Action.READ; an override
for oneself Action.RESPOND, for someone else, a rotation or a new calendar Action.EDIT.
Another team's calendar or event is a 404. The pages take the write session as the API's
on-call routes do: the team's default calendar is made the first time it is needed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, time, timedelta
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import account, oncall_days, oncall_people
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import field_errors
from watchpost.console.pickers import find_text, ids_of
from watchpost.console.policies import principal
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page, render
from watchpost.errors import InvalidRequest
from watchpost.listing import PageRequest
from watchpost.oncall import calendars, events, rotation
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallCalendar, OnCallEvent
from watchpost.oncall.schemas import DAYS, EventCreate, RotationCreate, rfc3339
from watchpost.people.roles import Action
from watchpost.problems import accepted, checked
from watchpost.teams.models import User, team_users
from watchpost.validation import object_id

router = console_router()
PER_PAGE: Final = 50
INTERVALS: Final = (("hour", "Hours"), ("day", "Days"), ("week", "Weeks"))


def utc_value(moment: datetime | None) -> str:
    """A time as a datetime-local input holds it (UTC)."""
    return "" if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


def rfc3339_of(text: str) -> str:
    """A datetime-local value (UTC) as the API's RFC 3339; anything else as typed, for the
    domain to name."""
    stripped = text.strip()
    if len(stripped) == 16 and stripped[10] == "T":
        return stripped + ":00Z"
    return stripped


@router.get("/on-call")
async def on_call_list(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    now = request.app.state.ctx.clock.now()
    asked = number(request.query_params.get("page"), 1, 100_000)
    paging = PageRequest(page=asked, per_page=PER_PAGE, base_url="/on-call", other_params=())
    db = await write_db(request)
    async with db.begin():
        await on_call.default_id(db, who.team_id, now=now)
        page = await calendars.page(db, principal(who), paging, None)
        shown = list(page.data)
        until = now + timedelta(days=oncall_days.DAYS_SHOWN)
        found = await oncall_days.events_between(db, [c.id for c in shown], now, until)
        rows = []
        emails: set[str] = set()
        for calendar in shown:
            current, following = oncall_days.now_and_next(
                oncall_days.pieces(found[calendar.id], now, until), now
            )
            rows.append((calendar, current, following))
            for piece in (current, following):
                emails |= {e.lower() for e in piece.emails} if piece else set()
        people = await oncall_days.people(db, who.team_id, emails)
    return render(
        request,
        "oncall.html",
        viewer=who,
        section="oncall",
        title="On-call",
        rows=rows,
        people=people,
        page_number=asked,
        has_next=page.links.get("next") is not None,
        may_edit=who.may(Action.EDIT),
        errors={},
        typed="",
    )


async def audit(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    action: str,
    calendar: OnCallCalendar,
    subject: str,
    details: dict[str, Any] | None = None,
) -> None:
    """account.audit of the calendar, now."""
    now = request.app.state.ctx.clock.now()
    await account.audit(
        db, request, who, action, now, ("on_call_calendar", calendar.id, subject), details
    )


def _rotation_values(calendar: OnCallCalendar) -> dict[str, str]:
    stored = calendar.rotation or {}
    hours = [
        f"{h['day']} {h['start_time']}-{h['end_time']}" for h in stored.get("working_hours") or []
    ]
    return {
        "users": "\n".join(stored.get("users") or []),
        "rotation_length": str(stored.get("rotation_length") or "1"),
        "rotation_interval": str(stored.get("rotation_interval") or "week"),
        "start_rotations_at": (stored.get("start_rotations_at") or "")[:16],
        "end_rotations_at": (stored.get("end_rotations_at") or "")[:16],
        "timezone": str(stored.get("timezone") or "UTC"),
        "working_hours": "\n".join(hours),
    }


async def show_calendar(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    calendar: OnCallCalendar,
    *,
    errors: dict[str, str] | None = None,
    rotation_values: dict[str, str] | None = None,
    override_values: dict[str, str] | None = None,
    at: oncall_days.Position | None = None,
    find: str = "",
) -> Response:
    now = request.app.state.ctx.clock.now()
    today = events.today(now)
    at = at or oncall_days.Position(today.date(), today.date())
    first = datetime.combine(at.first, time(), tzinfo=UTC)
    until = first + timedelta(days=oncall_days.DAYS_SHOWN)
    found = (await oncall_days.events_between(db, [calendar.id], first, until))[calendar.id]
    pieces = oncall_days.pieces(found, first, until)
    soon_until = now + timedelta(days=oncall_days.DAYS_SHOWN)
    soon = found
    if at.first != at.today:  # who is on call now and next: from the weeks after today
        soon = (await oncall_days.events_between(db, [calendar.id], now, soon_until))[calendar.id]
    current, following = oncall_days.now_and_next(oncall_days.pieces(soon, now, soon_until), now)
    overrides = [e for e in soon if e.override and e.ends_at > now]
    emails = {e.lower() for p in pieces for e in p.emails}
    emails |= {e.lower() for o in [*found, *soon] for e in o.users}
    people = await oncall_days.people(db, who.team_id, emails)
    chosen = ids_of([(override_values or {}).get("user", ""), who.user.id])
    members = (
        await oncall_people.by_id(db, who.team_id, find, chosen) if who.may(Action.EDIT) else None
    )
    start = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    return form_page(
        request,
        "oncall_calendar.html",
        who,
        errors=errors,
        section="oncall",
        title=f"On-call: {calendar.name}",
        calendar=calendar,
        current=current,
        following=following,
        days=oncall_days.by_day(pieces, first.date(), oncall_days.DAYS_SHOWN),
        at=at,
        find=find,
        people=people,
        overrides=overrides,
        shifts=found,
        members=members,
        rotation=calendar.rotation,
        rotation_values=rotation_values or _rotation_values(calendar),
        override_values=override_values
        or {
            "starts_at": utc_value(start),
            "ends_at": utc_value(start + timedelta(days=1)),
            "user": str(who.user.id),
        },
        intervals=INTERVALS,
        may_edit=who.may(Action.EDIT),
        may_take=who.may(Action.RESPOND),
    )


async def find_calendar(
    db: AsyncSession, who: Viewer, raw_id: str, now: datetime
) -> OnCallCalendar:
    if raw_id != calendars.DEFAULT:
        object_id(raw_id, calendars.TYPE)  # not a number: a 404, not a 422
    return await calendars.find(db, who.team_id, raw_id, now=now)


@asynccontextmanager
async def opened_calendar(
    request: Request, who: Viewer, raw_id: str, needs: Action, now: datetime
) -> AsyncIterator[tuple[AsyncSession, OnCallCalendar]]:
    """The team's calendar for a page (who's `needs` checked) in an open write transaction:
    finding the default calendar makes it on first use."""
    who.require(needs)
    db = await write_db(request)
    async with db.begin():
        yield db, await find_calendar(db, who, raw_id, now)


@router.get("/on-call/{calendar_id}")
async def calendar_page(request: Request, who: Signed, calendar_id: str) -> Response:
    now = request.app.state.ctx.clock.now()
    async with opened_calendar(request, who, calendar_id, Action.READ, now) as (db, calendar):
        at = oncall_days.position(request.query_params.get("from"), events.today(now).date())
        find = find_text(request.query_params.get("find"))
        return await show_calendar(request, who, db, calendar, at=at, find=find)


def _working_hours(text: str) -> list[dict[str, str]]:
    """ "monday 09:00-17:00" lines as the API's working hours (parts as typed: the domain
    names what is wrong)."""
    hours: list[dict[str, str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        day, _, span = line.strip().partition(" ")
        start, _, end = span.strip().partition("-")
        hours.append(
            {"day": day.strip().lower(), "start_time": start.strip(), "end_time": end.strip()}
        )
    return hours


ROTATION_FIELDS: Final = (
    "users",
    "rotation_length",
    "rotation_interval",
    "start_rotations_at",
    "end_rotations_at",
    "timezone",
    "working_hours",
)


@router.post("/on-call/{calendar_id}/rotation")
async def set_rotation(request: Request, who: Signed, calendar_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    now = request.app.state.ctx.clock.now()
    values = {name: str(form.get(name) or "") for name in ROTATION_FIELDS}
    length = values["rotation_length"].strip()
    body: dict[str, Any] = {
        "users": [line.strip() for line in values["users"].splitlines() if line.strip()],
        "rotation_length": int(length)
        if length.isascii() and length.isdigit() and len(length) <= 18
        else length,
        "rotation_interval": values["rotation_interval"],
        "start_rotations_at": rfc3339_of(values["start_rotations_at"]),
        "end_rotations_at": rfc3339_of(values["end_rotations_at"]),
        "timezone": values["timezone"].strip() or "UTC",
        "working_hours": _working_hours(values["working_hours"]),
    }

    async def store(db: AsyncSession) -> str:
        calendar = await find_calendar(db, who, calendar_id, now)
        data = accepted(*checked(RotationCreate, body))
        await rotation.set_rotation(db, calendar, data, who.team_name, now)
        await audit(request, who, db, "on_call.rotation_set", calendar, calendar.name)
        return f"/on-call/{calendar.id}#rotation"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        errors = field_errors(exc.problems, ROTATION_FIELDS)
        calendar = await find_calendar(db, who, calendar_id, now)
        return await show_calendar(
            request, who, db, calendar, errors=errors, rotation_values=values
        )

    return await stored_or_again(request, store, again)


OVERRIDE_FIELDS: Final = ("starts_at", "ends_at", "user")


@router.post("/on-call/{calendar_id}/overrides")
async def take_over(request: Request, who: Signed, calendar_id: str) -> Response:
    """An override: the signed-in person (or, for an admin, the member chosen) is on call
    instead of the regular events' people from starts_at until ends_at."""
    form = await permitted_form(request, who, Action.RESPOND)
    now = request.app.state.ctx.clock.now()
    values = {name: str(form.get(name) or "") for name in OVERRIDE_FIELDS}
    chosen = values["user"].strip() or str(who.user.id)
    if chosen != str(who.user.id):
        who.require(Action.EDIT)  # someone else's shift: admins only

    async def store(db: AsyncSession) -> str:
        calendar = await find_calendar(db, who, calendar_id, now)
        person = who.user
        if chosen != str(who.user.id):
            found = await db.scalar(
                team_users(who.team_id).where(User.id == object_id(chosen, "user"))
            )
            if found is None:
                raise InvalidRequest([("user", "Choose a member of the team")])
            person = found
        body = {
            "starts_at": rfc3339_of(values["starts_at"]),
            "ends_at": rfc3339_of(values["ends_at"]),
            "users": [person.email],
            "override": True,
        }
        data = accepted(*checked(EventCreate, body))
        made = await events.make(db, calendar, data, now)
        details = {
            "event_id": made.id,
            "user": person.email,
            "starts_at": rfc3339(made.starts_at),
            "ends_at": rfc3339(made.ends_at),
        }
        await audit(request, who, db, "on_call.override_created", calendar, calendar.name, details)
        return f"/on-call/{calendar.id}#overrides"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        problems = [
            ("user" if name == "users" else name, message) for name, message in exc.problems
        ]
        errors = field_errors(problems, OVERRIDE_FIELDS)
        calendar = await find_calendar(db, who, calendar_id, now)
        return await show_calendar(
            request, who, db, calendar, errors=errors, override_values=values
        )

    return await stored_or_again(request, store, again)


@router.post("/on-call/{calendar_id}/overrides/{event_id}/delete")
async def remove_override(
    request: Request, who: Signed, calendar_id: str, event_id: str
) -> Response:
    """Remove an override: one's own (Action.RESPOND), anyone's (Action.EDIT)."""
    now = request.app.state.ctx.clock.now()

    async def find(db: AsyncSession) -> tuple[OnCallCalendar, OnCallEvent]:
        calendar = await find_calendar(db, who, calendar_id, now)
        event = await events.get(db, calendar, object_id(event_id, events.TYPE))
        if not event.override:
            raise InvalidRequest([(None, "Only overrides are removed here")])
        own = [e.lower() for e in event.users] == [who.user.email.lower()]
        if not own:
            who.require(Action.EDIT)
        return calendar, event

    async def remove(db: AsyncSession, found: tuple[OnCallCalendar, OnCallEvent]) -> None:
        calendar, event = found
        details = {"event_id": event.id, "users": list(event.users)}
        await events.remove(db, calendar, event, now)
        await audit(request, who, db, "on_call.override_removed", calendar, calendar.name, details)

    def ask(found: tuple[OnCallCalendar, OnCallEvent]) -> Asking:
        calendar, event = found
        return Asking(
            question="Remove an override",
            detail=(
                f"Remove the override of {', '.join(event.users)} from "
                f"{rfc3339(event.starts_at)} to {rfc3339(event.ends_at)}?"
            ),
            action=f"/on-call/{calendar.id}/overrides/{event.id}/delete",
            button="Remove the override",
            back=f"/on-call/{calendar.id}",
        )

    return await delete_confirmed(
        request,
        who,
        "oncall",
        find=find,
        ask=ask,
        remove=remove,
        done=lambda found: f"/on-call/{found[0].id}?done=deleted#overrides",
        needs=Action.RESPOND,
    )


__all__ = ["DAYS", "router"]
