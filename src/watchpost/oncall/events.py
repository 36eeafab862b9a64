"""A calendar's events and rotation: made, changed, replaced and deleted under the hosted
API's rules. No HTTP here.

Events name people by the e-mail of a member of the team (any other address is a 422); they
start today 00:00 UTC or later, and end after they start. An event that ended before today
00:00 UTC is history: it cannot be changed or deleted. Any edit sets the calendar's
`next_check_at` to now, so the delivery worker looks at once at who is on call (the
`on_call_change` webhooks).
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any, Final

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import team_object
from watchpost.errors import InvalidRequest, Problem
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallCalendar, OnCallEvent
from watchpost.oncall.schemas import (
    EventCreate,
    EventsReplace,
    EventUpdate,
    parse_time,
    rfc3339,
)
from watchpost.problems import accepted

TYPE: Final = "on_call_event"
SHOWN_PAST_DAYS: Final = 30
"""A calendar's event list shows the events that ended in the last 30 days, and all later."""
MAX_SHOWN: Final = 5000
"""…at most this many, earliest first."""


def today(now: datetime) -> datetime:
    """Today 00:00 UTC: events may start from then, and those ending before are history."""
    return datetime.combine(now.astimezone(UTC).date(), time(), tzinfo=UTC)


def attributes(event: OnCallEvent) -> dict[str, Any]:
    return {
        "users": list(event.users),
        "starts_at": rfc3339(event.starts_at),
        "ends_at": rfc3339(event.ends_at),
        "override": event.override,
    }


def flat(event: OnCallEvent) -> dict[str, Any]:
    """The event as the hosted API lists it."""
    return {"id": event.id, **attributes(event)}


def item(event: OnCallEvent) -> dict[str, Any]:
    """The event as a JSON:API resource (what the python client reads)."""
    return {"id": str(event.id), "type": TYPE, "attributes": attributes(event)}


def document(event: OnCallEvent) -> dict[str, Any]:
    """One event: its flat fields and `data`, so both shapes read it."""
    return {**flat(event), "data": item(event)}


def documents(events: list[OnCallEvent]) -> dict[str, Any]:
    return {"data": [item(e) for e in events], "events": [flat(e) for e in events]}


def touched(calendar: OnCallCalendar, now: datetime) -> None:
    """Who is on call may have changed: the worker looks at the calendar now."""
    calendar.next_check_at = now
    calendar.updated_at = now


async def known(db: AsyncSession, team_id: int, sent: list[str]) -> dict[str, str]:
    """The team's members among the addresses sent: lower-cased → as stored."""
    return {u.email.lower(): u.email for u in await on_call.members(db, team_id, sent)}


def members_named(
    sent: list[str], found: dict[str, str], where: str
) -> tuple[list[str], list[Problem]]:
    """The members' stored addresses for those sent, or a problem naming the others."""
    unknown = [email for email in sent if email.lower() not in found]
    if unknown:
        return [], [(where, f"{where} must name members of the team: {', '.join(unknown)}")]
    return [found[email.lower()] for email in sent], []


def _values(
    data: EventCreate,
    found: dict[str, str],
    now: datetime,
    where: str = "",
    *,
    check_start: bool = True,
) -> tuple[dict[str, Any], list[Problem]]:
    """The row values of an event and its problems (`check_start`: the start must be today
    or later; a change that keeps a running event's start does not check it)."""
    starts, problems = parse_time(f"{where}starts_at", data.starts_at)
    ends, more = parse_time(f"{where}ends_at", data.ends_at)
    problems += more
    if check_start and starts is not None and starts < today(now):
        problems.append((f"{where}starts_at", f"{where}starts_at must be today 00:00 UTC or later"))
    if starts is not None and ends is not None and ends <= starts:
        problems.append((f"{where}ends_at", f"{where}ends_at must be after starts_at"))
    users, more = members_named(data.users, found, f"{where}users")
    values = {"users": users, "starts_at": starts, "ends_at": ends, "override": data.override}
    return values, problems + more


async def _checked(
    db: AsyncSession,
    calendar: OnCallCalendar,
    data: EventCreate,
    now: datetime,
    *,
    check_start: bool = True,
) -> dict[str, Any]:
    """The row values of an event, or a 422 naming every problem."""
    found = await known(db, calendar.team_id, data.users)
    values, problems = _values(data, found, now, check_start=check_start)
    accepted(data, problems)
    return values


def _row(calendar: OnCallCalendar, values: dict[str, Any], now: datetime) -> OnCallEvent:
    return OnCallEvent(
        team_id=calendar.team_id,
        calendar_id=calendar.id,
        created_at=now,
        updated_at=now,
        **values,
    )


async def listed(db: AsyncSession, calendar: OnCallCalendar, now: datetime) -> list[OnCallEvent]:
    stmt = (
        select(OnCallEvent)
        .where(
            OnCallEvent.calendar_id == calendar.id,
            OnCallEvent.ends_at >= now - timedelta(days=SHOWN_PAST_DAYS),
        )
        .order_by(OnCallEvent.starts_at, OnCallEvent.id)
        .limit(MAX_SHOWN)
    )
    return list(await db.scalars(stmt))


async def get(db: AsyncSession, calendar: OnCallCalendar, raw_id: int) -> OnCallEvent:
    return await team_object(
        db, OnCallEvent, TYPE, team_id=calendar.team_id, object_id=raw_id, calendar_id=calendar.id
    )


async def make(
    db: AsyncSession, calendar: OnCallCalendar, data: EventCreate, now: datetime
) -> OnCallEvent:
    event = _row(calendar, await _checked(db, calendar, data, now), now)
    db.add(event)
    touched(calendar, now)
    await db.flush()
    return event


def _not_history(event: OnCallEvent, now: datetime) -> None:
    if event.ends_at < today(now):
        raise InvalidRequest(
            [(None, "An event that ended before today 00:00 UTC cannot be changed or deleted")]
        )


async def change(
    db: AsyncSession,
    calendar: OnCallCalendar,
    event: OnCallEvent,
    data: EventUpdate,
    now: datetime,
) -> None:
    """The sent fields change; the event must still follow the rules."""
    _not_history(event, now)
    sent = data.model_fields_set
    merged = EventCreate(
        starts_at=data.starts_at or rfc3339(event.starts_at),
        ends_at=data.ends_at or rfc3339(event.ends_at),
        users=data.users if data.users is not None else list(event.users),
        override=event.override if data.override is None else data.override,
    )
    values = await _checked(db, calendar, merged, now, check_start="starts_at" in sent)
    for name in ("starts_at", "ends_at"):
        if name not in sent:  # kept exactly, not as shown
            values[name] = getattr(event, name)
    for name, value in values.items():
        setattr(event, name, value)
    event.updated_at = now
    touched(calendar, now)
    await db.flush()


async def remove(
    db: AsyncSession, calendar: OnCallCalendar, event: OnCallEvent, now: datetime
) -> None:
    _not_history(event, now)
    await db.delete(event)
    touched(calendar, now)
    await db.flush()


async def replace(
    db: AsyncSession, calendar: OnCallCalendar, data: EventsReplace, now: datetime
) -> list[OnCallEvent]:
    """Every event starting today 00:00 UTC or later gives way to those sent (all or none:
    one 422 names every problem)."""
    sent = [EventCreate(**e.model_dump(exclude={"id"})) for e in data.events]
    found = await known(db, calendar.team_id, [u for e in sent for u in e.users])
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for i, event in enumerate(sent):
        values, wrong = _values(event, found, now, f"events[{i}].")
        rows.append(values)
        problems += wrong
    accepted(data, problems)
    await db.execute(
        delete(OnCallEvent)
        .where(OnCallEvent.calendar_id == calendar.id, OnCallEvent.starts_at >= today(now))
        .execution_options(synchronize_session=False)
    )
    made = [_row(calendar, values, now) for values in rows]
    db.add_all(made)
    touched(calendar, now)
    await db.flush()
    return sorted(made, key=lambda e: (e.starts_at, e.id))
