"""A single on-call shift (an event of a calendar) edited or deleted: its page
/on-call/{id}/events/{event_id}/edit with its people (the team's members ticked, by name and
address, through oncall_people.py, with a Find when there are many; other addresses may be
typed, one a line), start and end (UTC), and its deletion after a confirmation. The
calendar page's position (`from`) is kept: saving or deleting returns to it.

The body is the API's PATCH body, checked and stored by events.change (deleted by
events.remove), so the rules are the API's: members' addresses only, the end after the
start, no change to a shift that ended before today. A start or end left as shown is not
sent, so a running shift keeps its start as the API keeps it. Both need Action.EDIT (a
person removes their own override on the calendar's page, oncall.py); an audit entry each;
another team's calendar or event is a 404.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import oncall_days, oncall_people
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import field_errors
from watchpost.console.oncall import audit, find_calendar, rfc3339_of, utc_value
from watchpost.console.pickers import find_text
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.oncall import events
from watchpost.oncall.models import OnCallCalendar, OnCallEvent
from watchpost.oncall.schemas import EVENT_NOT_NULL, EventUpdate, rfc3339
from watchpost.people.roles import Action
from watchpost.problems import accepted, checked
from watchpost.validation import object_id

router = console_router()
FIELDS: Final = ("users", "starts_at", "ends_at")


def _values(event: OnCallEvent) -> dict[str, Any]:
    return {
        "users": list(event.users),
        "more_users": "",
        "starts_at": utc_value(event.starts_at),
        "ends_at": utc_value(event.ends_at),
    }


def _posted(form: Any) -> dict[str, Any]:
    return {
        "users": [  # ticked boxes; lines of addresses too, as the form took them before
            line.strip()
            for item in form.getlist("users")
            for line in str(item).splitlines()
            if line.strip()
        ],
        "more_users": str(form.get("more_users") or ""),
        "starts_at": str(form.get("starts_at") or ""),
        "ends_at": str(form.get("ends_at") or ""),
    }


def _back(request: Request, raw: object) -> str:
    """The calendar page's `from` to return to (empty: today; a bad value: today)."""
    today = request.app.state.ctx.clock.now().astimezone(UTC).date()
    return oncall_days.position(raw, today).query


async def _found(
    db: AsyncSession, who: Viewer, calendar_id: str, event_id: str, request: Request
) -> tuple[OnCallCalendar, OnCallEvent]:
    now = request.app.state.ctx.clock.now()
    calendar = await find_calendar(db, who, calendar_id, now)
    return calendar, await events.get(db, calendar, object_id(event_id, events.TYPE))


async def _form(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    calendar: OnCallCalendar,
    event: OnCallEvent,
    values: dict[str, Any],
    errors: dict[str, str] | None = None,
    *,
    find: str = "",
    back: str = "",
) -> Response:
    chosen = list(values["users"])
    members = await oncall_people.by_email(db, who.team_id, find, chosen)
    offered = {key for key, _ in members.items}
    others = [a for a in dict.fromkeys(chosen) if a.lower() not in offered]
    ticked = {a.lower() for a in chosen}
    return form_page(
        request,
        "oncall_event.html",
        who,
        errors=errors,
        section="oncall",
        title="Edit an override" if event.override else "Edit a shift",
        calendar=calendar,
        event=event,
        values=values,
        members=members,
        others=others,
        ticked=ticked,
        find=find,
        back=back,
    )


async def _again(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    ids: tuple[str, str],
    exc: InvalidRequest,
    values: dict[str, Any] | None,
    find: str,
    back: str,
) -> Response:
    """The event's form again (the calendar's and event's `ids`; in a transaction of db) with
    the domain's problems beside its fields, showing `values` as posted, or the event's own
    when None."""
    calendar, event = await _found(db, who, *ids, request)
    errors = field_errors(exc.problems, FIELDS)
    shown = _values(event) if values is None else values
    return await _form(request, who, db, calendar, event, shown, errors, find=find, back=back)


@router.get("/on-call/{calendar_id}/events/{event_id}/edit")
async def edit_event(request: Request, who: Signed, calendar_id: str, event_id: str) -> Response:
    who.require(Action.EDIT)
    db = await write_db(request)
    async with db.begin():
        calendar, event = await _found(db, who, calendar_id, event_id, request)
        find = find_text(request.query_params.get("find"))
        back = _back(request, request.query_params.get("from"))
        return await _form(request, who, db, calendar, event, _values(event), find=find, back=back)


def _body(values: dict[str, Any], shown: dict[str, Any]) -> dict[str, Any]:
    """The PATCH body: the people (ticked, then typed; each once), and each time only when
    it differs from the one shown."""
    typed = [line.strip() for line in values["more_users"].splitlines() if line.strip()]
    people: dict[str, str] = {}
    for item in [*values["users"], *typed]:
        people.setdefault(item.lower(), item)
    body: dict[str, Any] = {"users": list(people.values())}
    for name in ("starts_at", "ends_at"):
        if values[name].strip() != shown[name]:
            body[name] = rfc3339_of(values[name])
    return body


@router.post("/on-call/{calendar_id}/events/{event_id}/edit")
async def update_event(request: Request, who: Signed, calendar_id: str, event_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    now = request.app.state.ctx.clock.now()
    values = _posted(form)
    find = find_text(form.get("find"))
    back = _back(request, form.get("from"))

    async def store(db: AsyncSession) -> str:
        calendar, event = await _found(db, who, calendar_id, event_id, request)
        before = events.flat(event)
        data = accepted(
            *checked(EventUpdate, _body(values, _values(event)), not_null=EVENT_NOT_NULL)
        )
        await events.change(db, calendar, event, data, now)
        details = {"event_id": event.id, "before": before, "after": events.flat(event)}
        await audit(request, who, db, "on_call.event_updated", calendar, calendar.name, details)
        return _calendar_url(calendar.id, back, "saved")

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        return await _again(request, who, db, (calendar_id, event_id), exc, values, find, back)

    return await stored_or_again(request, store, again)


def _calendar_url(calendar_id: int, back: str, done: str) -> str:
    return f"/on-call/{calendar_id}?{back + '&' if back else ''}done={done}#shifts"


@router.post("/on-call/{calendar_id}/events/{event_id}/delete")
async def delete_event(request: Request, who: Signed, calendar_id: str, event_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    now = request.app.state.ctx.clock.now()
    back = _back(request, form.get("from"))
    db = await write_db(request)
    try:
        async with db.begin():
            calendar, event = await _found(db, who, calendar_id, event_id, request)
            if not confirmed(form):
                kind = "override" if event.override else "shift"
                return confirm_page(
                    request,
                    who,
                    section="oncall",
                    title=f"Delete a {kind}",
                    question=f"Delete this {kind}?",
                    detail=(
                        f"{', '.join(event.users)} on call from {rfc3339(event.starts_at)} "
                        f"until {rfc3339(event.ends_at)} in {calendar.name}."
                    ),
                    action=f"/on-call/{calendar.id}/events/{event.id}/delete",
                    fields=[("from", back[len("from=") :])] if back else [],
                    button=f"Delete the {kind}",
                    back=f"/on-call/{calendar.id}{'?' + back if back else ''}#shifts",
                )
            details = {"event_id": event.id, **events.attributes(event)}
            await events.remove(db, calendar, event, now)
            await audit(request, who, db, "on_call.event_deleted", calendar, calendar.name, details)
            saved = calendar.id
    except InvalidRequest as exc:
        async with db.begin():
            return await _again(request, who, db, (calendar_id, event_id), exc, None, "", back)
    return RedirectResponse(_calendar_url(saved, back, "deleted"), status_code=303)
