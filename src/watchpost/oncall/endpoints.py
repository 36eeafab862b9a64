"""Routes of /api/v2/on-calls: calendars (`default` names the team's default one), their
events and their rotation. Every route takes the write lock: the default calendar is made the
first time a team needs it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.errors import NotFound
from watchpost.http.body import JsonObject
from watchpost.http.children import Children, PathIds, Within
from watchpost.http.crud import Routes
from watchpost.http.deps import Caller, Context, WriteDb
from watchpost.http.envelope import JsonResponse, listing, no_content, single
from watchpost.http.errors import READ_ERRORS, WRITE_ERRORS, error_responses
from watchpost.http.openapi import request_body
from watchpost.http.pagination import Paging
from watchpost.oncall import calendars, events, rotation
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallCalendar, OnCallEvent
from watchpost.oncall.schemas import (
    CALENDAR_NOT_NULL,
    EVENT_NOT_NULL,
    CalendarAttributes,
    CalendarCreate,
    CalendarUpdate,
    EventCreate,
    EventDoc,
    EventsDoc,
    EventsReplace,
    EventUpdate,
    RotationCreate,
    RotationDoc,
)
from watchpost.problems import accepted, checked
from watchpost.teams.service import Principal

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")

router = APIRouter(prefix="/api/v2/on-calls", tags=["on-call calendars"])
routes = Routes(router, CalendarAttributes)
CALENDAR_ID = "A calendar's id, or `default`: the team's default one."
CalendarId = Annotated[str, Path(alias="id", description=CALENDAR_ID)]
ABOUT = (
    "Who is on call when. `on_call_users` (and `included`) are the people on call now: those "
    "of the override events running now if any, else those of the regular events."
)


@routes.create("", summary="Create an on-call calendar", description=ABOUT, body=CalendarCreate)
async def create(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = accepted(*checked(CalendarCreate, body))
    now = ctx.clock.now()
    async with db.begin():
        await on_call.default_id(db, caller.team_id, now=now)
        made = await calendars.make(db, caller, data, now=now)
        shown, included = await calendars.documents(db, [made], caller.team_name, now)
    return single(shown[0], status=201, included=included)


@routes.list("", summary="List on-call calendars")
async def list_all(
    caller: Caller,
    ctx: Context,
    db: WriteDb,
    paging: Paging,
    team_name: Annotated[str | None, Query(max_length=255)] = None,
) -> Response:
    now = ctx.clock.now()
    async with db.begin():
        await on_call.default_id(db, caller.team_id, now=now)
        page = await calendars.page(db, caller, paging, team_name)
        shown, included = await calendars.documents(db, page.data, caller.team_name, now)
    return listing(shown, page.links, included=included)


@routes.get("/{id}", summary="Get an on-call calendar")
async def get(calendar_id: CalendarId, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    now = ctx.clock.now()
    async with db.begin():
        found = await calendars.find(db, caller.team_id, calendar_id, now=now)
        shown, included = await calendars.documents(db, [found], caller.team_name, now)
    return single(shown[0], included=included)


@routes.update(
    "/{id}", summary="Update an on-call calendar", body=CalendarUpdate, not_null=CALENDAR_NOT_NULL
)
async def update(
    calendar_id: CalendarId, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    now = ctx.clock.now()
    async with db.begin():
        found = await calendars.find(db, caller.team_id, calendar_id, now=now)
        data = accepted(*checked(CalendarUpdate, body, not_null=CALENDAR_NOT_NULL))
        await calendars.change(db, caller, found, data, now=now)
        shown, included = await calendars.documents(db, [found], caller.team_name, now)
    return single(shown[0], included=included)


@routes.delete(
    "/{id}",
    summary="Delete an on-call calendar",
    description="Not the default calendar (422), nor one an escalation policy names (409).",
    errors=error_responses(401, 404, 409, 422),
)
async def delete(calendar_id: CalendarId, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    async with db.begin():
        found = await calendars.find(db, caller.team_id, calendar_id, now=ctx.clock.now())
        await calendars.remove(db, found)
    return no_content()


# ------------------------------------------------------------------------------ events


async def _sent_to(
    calendar_id: str,
    model: type[M],
    body: dict[str, Any],
    caller: Principal,
    ctx: AppContext,
    db: AsyncSession,
    work: Callable[[AsyncSession, OnCallCalendar, M, datetime], Awaitable[R]],
) -> R:
    """What `work` makes of the body (parsed by `model`) sent to the calendar a path id
    names, in one transaction."""
    now = ctx.clock.now()
    async with db.begin():
        found = await calendars.find(db, caller.team_id, calendar_id, now=now)
        return await work(db, found, accepted(*checked(model, body)), now)


OnCalendar = Within[OnCallCalendar]
"""An event's route at work within its calendar."""


class Events:
    """A calendar's events (http/children.py): the calendar is read as every route here
    reads it (`default` names the team's default one, made when first named)."""

    PATH, KEY = "/{id}/events", "event_id"
    NOUN, PLURAL, TYPE = "event", "events", events.TYPE

    async def parent(
        self, db: AsyncSession, caller: Principal, ids: PathIds, now: datetime, *, lock: bool
    ) -> OnCallCalendar:
        return await calendars.find(db, caller.team_id, ids[0], now=now)

    async def get(self, at: OnCalendar, event_id: int, /) -> OnCallEvent:
        return await events.get(at.db, at.parent, event_id)

    async def answer(self, at: OnCalendar, event: OnCallEvent, status: int, /) -> Response:
        return JsonResponse(events.document(event), status_code=status)

    async def make(self, at: OnCalendar, data: EventCreate) -> OnCallEvent:
        return await events.make(at.db, at.parent, data, at.now)

    async def change(self, at: OnCalendar, event: OnCallEvent, data: EventUpdate) -> None:
        await events.change(at.db, at.parent, event, data, at.now)

    async def remove(self, at: OnCalendar, event: OnCallEvent) -> None:
        await events.remove(at.db, at.parent, event, at.now)


EVENTS = Events()
event_routes = Children(
    Routes(router, one=EventDoc, many=EventsDoc),
    EVENTS,
    described={"id": CALENDAR_ID},
    reads_write=True,
)


# Not Children.list_all: the OpenAPI document names this list's 200 schema after the
# endpoint's `Any` (its "title"), which the factory's endpoints do not repeat.
@router.get(
    "/{id}/events",
    summary="List a calendar's events",
    description=(
        f"Events that ended in the last {events.SHOWN_PAST_DAYS} days and all later ones, "
        f"earliest first, at most {events.MAX_SHOWN}: `events` as the hosted API lists them, "
        "`data` as JSON:API resources. Not paginated."
    ),
    responses={200: {"model": EventsDoc}, **READ_ERRORS},
)
async def list_events(calendar_id: CalendarId, caller: Caller, ctx: Context, db: WriteDb) -> Any:
    now = ctx.clock.now()
    async with db.begin():
        found = await calendars.find(db, caller.team_id, calendar_id, now=now)
        listed = await events.listed(db, found, now)
    return JsonResponse(events.documents(listed))


event_routes.create(EventCreate, summary="Create an on-call event")


@router.put(
    "/{id}/events",
    summary="Replace a calendar's events",
    description="Every event starting today 00:00 UTC or later gives way to those sent.",
    responses={200: {"model": EventsDoc}, **WRITE_ERRORS},
    openapi_extra=request_body(EventsReplace),
)
async def replace_events(
    calendar_id: CalendarId, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    made = await _sent_to(calendar_id, EventsReplace, body, caller, ctx, db, events.replace)
    return JsonResponse(events.documents(made))


event_routes.get(summary="Get an on-call event")
event_routes.update(
    EventUpdate,
    not_null=EVENT_NOT_NULL,
    nulls_first=True,
    summary="Update an on-call event",
    description="Not one that ended before today 00:00 UTC (422).",
)
event_routes.delete(
    summary="Delete an on-call event",
    description="Not one that ended before today 00:00 UTC (422).",
    errors=error_responses(401, 404, 422),
)


# ---------------------------------------------------------------------------- rotation


@router.get(
    "/{id}/rotation",
    summary="Get a calendar's rotation",
    description="404 when none was set.",
    responses={200: {"model": RotationDoc}, **READ_ERRORS},
)
async def get_rotation(calendar_id: CalendarId, caller: Caller, ctx: Context, db: WriteDb) -> Any:
    async with db.begin():
        found = await calendars.find(db, caller.team_id, calendar_id, now=ctx.clock.now())
    if found.rotation is None:
        raise NotFound("on_call_rotation", calendar_id)
    return JsonResponse(rotation.document(found.rotation))


@router.post(
    "/{id}/rotation",
    status_code=201,
    summary="Set a calendar's rotation",
    description=(
        "The users in turn, `rotation_length` times `rotation_interval` (hour, day or week; "
        "`rotation_period` is its alias) each, from `start_rotations_at` to "
        "`end_rotations_at`: regular events replacing the regular events in that span "
        f"(those ending after today 00:00 UTC); at most {rotation.MAX_ROTATION_EVENTS} events. "
        "`timezone` (IANA) sets the wall clock of the handovers and of `working_hours` "
        "(windows by `day`, `start_time`, `end_time`: when the shift's user is on call)."
    ),
    responses={201: {"model": RotationDoc}, **WRITE_ERRORS},
    openapi_extra=request_body(RotationCreate),
)
async def set_rotation(
    calendar_id: CalendarId, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    shown = await _sent_to(
        calendar_id,
        RotationCreate,
        body,
        caller,
        ctx,
        db,
        lambda db, found, data, now: rotation.set_rotation(db, found, data, caller.team_name, now),
    )
    return JsonResponse(shown, status_code=201)


routers = (router,)
