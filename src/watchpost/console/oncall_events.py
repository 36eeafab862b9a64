"""A single on-call shift (an event of a calendar) edited or deleted: its page
/on-call/{id}/events/{event_id}/edit with its people (e-mail addresses, one a line), start
and end (UTC), and its deletion after a confirmation.

The body is the API's PATCH body, checked and stored by events.change (deleted by
events.remove), so the rules are the API's: members' addresses only, the end after the
start, no change to a shift that ended before today. A start or end left as shown is not
sent, so a running shift keeps its start as the API keeps it. Both need Action.EDIT (a
person removes their own override on the calendar's page, oncall.py); an audit entry each;
another team's calendar or event is a 404.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer, checked_form, viewer, write_db
from watchpost.console.errors import ConsoleRoute
from watchpost.console.forms import field_errors
from watchpost.console.oncall import audit, find_calendar, rfc3339_of, utc_value
from watchpost.console.web import render
from watchpost.errors import InvalidRequest
from watchpost.oncall import events
from watchpost.oncall.models import OnCallCalendar, OnCallEvent
from watchpost.oncall.schemas import EVENT_NOT_NULL, EventUpdate, rfc3339
from watchpost.people.roles import Action
from watchpost.problems import accepted, checked
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
Signed = Annotated[Viewer, Depends(viewer)]
FIELDS: Final = ("users", "starts_at", "ends_at")


def _values(event: OnCallEvent) -> dict[str, str]:
    return {
        "users": "\n".join(event.users),
        "starts_at": utc_value(event.starts_at),
        "ends_at": utc_value(event.ends_at),
    }


async def _found(
    db: AsyncSession, who: Viewer, calendar_id: str, event_id: str, request: Request
) -> tuple[OnCallCalendar, OnCallEvent]:
    now = request.app.state.ctx.clock.now()
    calendar = await find_calendar(db, who, calendar_id, now)
    return calendar, await events.get(db, calendar, object_id(event_id, events.TYPE))


def _form(
    request: Request,
    who: Viewer,
    calendar: OnCallCalendar,
    event: OnCallEvent,
    values: dict[str, str],
    errors: dict[str, str] | None = None,
) -> Response:
    return render(
        request,
        "oncall_event.html",
        status=422 if errors else 200,
        viewer=who,
        section="oncall",
        title="Edit an override" if event.override else "Edit a shift",
        calendar=calendar,
        event=event,
        values=values,
        errors=errors or {},
    )


@router.get("/on-call/{calendar_id}/events/{event_id}/edit")
async def edit_event(request: Request, who: Signed, calendar_id: str, event_id: str) -> Response:
    who.require(Action.EDIT)
    db = await write_db(request)
    async with db.begin():
        calendar, event = await _found(db, who, calendar_id, event_id, request)
        return _form(request, who, calendar, event, _values(event))


def _body(values: dict[str, str], shown: dict[str, str]) -> dict[str, Any]:
    """The PATCH body: the people, and each time only when it differs from the one shown."""
    body: dict[str, Any] = {
        "users": [line.strip() for line in values["users"].splitlines() if line.strip()]
    }
    for name in ("starts_at", "ends_at"):
        if values[name].strip() != shown[name]:
            body[name] = rfc3339_of(values[name])
    return body


@router.post("/on-call/{calendar_id}/events/{event_id}/edit")
async def update_event(request: Request, who: Signed, calendar_id: str, event_id: str) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    now = request.app.state.ctx.clock.now()
    values = {name: str(form.get(name) or "") for name in FIELDS}
    db = await write_db(request)
    try:
        async with db.begin():
            calendar, event = await _found(db, who, calendar_id, event_id, request)
            before = events.flat(event)
            data = accepted(
                *checked(EventUpdate, _body(values, _values(event)), not_null=EVENT_NOT_NULL)
            )
            await events.change(db, calendar, event, data, now)
            details = {"event_id": event.id, "before": before, "after": events.flat(event)}
            await audit(request, who, db, "on_call.event_updated", calendar, calendar.name, details)
            saved = calendar.id
    except InvalidRequest as exc:
        async with db.begin():
            calendar, event = await _found(db, who, calendar_id, event_id, request)
            return _form(request, who, calendar, event, values, field_errors(exc.problems, FIELDS))
    return RedirectResponse(f"/on-call/{saved}?done=saved#shifts", status_code=303)


@router.post("/on-call/{calendar_id}/events/{event_id}/delete")
async def delete_event(request: Request, who: Signed, calendar_id: str, event_id: str) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    try:
        async with db.begin():
            calendar, event = await _found(db, who, calendar_id, event_id, request)
            if str(form.get("confirm", "")) != "yes":
                kind = "override" if event.override else "shift"
                return render(
                    request,
                    "confirm.html",
                    viewer=who,
                    section="oncall",
                    title=f"Delete a {kind}",
                    question=f"Delete this {kind}?",
                    detail=(
                        f"{', '.join(event.users)} on call from {rfc3339(event.starts_at)} "
                        f"until {rfc3339(event.ends_at)} in {calendar.name}."
                    ),
                    action=f"/on-call/{calendar.id}/events/{event.id}/delete",
                    fields=[],
                    button=f"Delete the {kind}",
                    back=f"/on-call/{calendar.id}#shifts",
                )
            details = {"event_id": event.id, **events.attributes(event)}
            await events.remove(db, calendar, event, now)
            await audit(request, who, db, "on_call.event_deleted", calendar, calendar.name, details)
            saved = calendar.id
    except InvalidRequest as exc:
        async with db.begin():
            calendar, event = await _found(db, who, calendar_id, event_id, request)
            errors = field_errors(exc.problems, FIELDS)
            return _form(request, who, calendar, event, _values(event), errors)
    return RedirectResponse(f"/on-call/{saved}?done=deleted#shifts", status_code=303)
