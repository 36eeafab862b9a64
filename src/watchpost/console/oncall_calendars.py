"""/on-call calendars made, renamed and deleted: the form on the list page, a calendar's
settings page (/on-call/{id}/edit: its name, and its deletion after a confirmation).

The API's calendars.make/change/remove check and store, so the console keeps the API's
rules: the team's default calendar cannot be deleted (the settings page says so, and a
deletion posted anyway is refused with the API's words), nor one an escalation policy names
(the policies are listed, linking to them). Every change needs Action.EDIT and leaves an
audit entry; another team's calendar is a 404.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import FORM_ERROR, field_errors
from watchpost.console.oncall import audit, find_calendar, opened_calendar
from watchpost.console.policies import principal
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.errors import Conflict, InvalidRequest
from watchpost.oncall import calendars
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallCalendar
from watchpost.oncall.schemas import CALENDAR_NOT_NULL, CalendarCreate, CalendarUpdate
from watchpost.people.roles import Action
from watchpost.policies.models import Policy
from watchpost.problems import accepted, checked

router = console_router()


@router.post("/on-call/new")
async def create_calendar(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    now = request.app.state.ctx.clock.now()
    name = " ".join(str(form.get("name") or "").split())
    db = await write_db(request)
    try:
        async with db.begin():
            await on_call.default_id(db, who.team_id, now=now)
            data = accepted(*checked(CalendarCreate, {"name": name}))
            made = await calendars.make(db, principal(who), data, now=now)
            await audit(request, who, db, "on_call_calendar.created", made, made.name)
    except InvalidRequest as exc:
        return render(
            request,
            "error.html",
            status=422,
            title="Not possible",
            message=" ".join(m for _, m in exc.problems) + " Go back and name the calendar.",
            viewer=who,
            section="oncall",
        )
    return RedirectResponse(f"/on-call/{made.id}", status_code=303)


async def _naming_policies(db: AsyncSession, calendar: OnCallCalendar) -> list[Policy]:
    """The team's policies whose steps name the calendar (calendars.remove's own test)."""
    found = await db.scalars(
        select(Policy).where(Policy.team_id == calendar.team_id).order_by(Policy.name, Policy.id)
    )
    return [p for p in found if calendars.names_calendar(p.steps, calendar.id)]


async def _settings(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    calendar: OnCallCalendar,
    *,
    name: str | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    return render(
        request,
        "oncall_edit.html",
        status=status,
        viewer=who,
        section="oncall",
        title=f"Settings of {calendar.name}",
        calendar=calendar,
        name=calendar.name if name is None else name,
        policies=await _naming_policies(db, calendar),
        errors=errors or {},
    )


@router.get("/on-call/{calendar_id}/edit")
async def calendar_settings(request: Request, who: Signed, calendar_id: str) -> Response:
    now = request.app.state.ctx.clock.now()
    async with opened_calendar(request, who, calendar_id, Action.EDIT, now) as (db, calendar):
        return await _settings(request, who, db, calendar)


@router.post("/on-call/{calendar_id}/edit")
async def rename_calendar(request: Request, who: Signed, calendar_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    now = request.app.state.ctx.clock.now()
    typed = str(form.get("name") or "")
    body: dict[str, Any] = {"name": " ".join(typed.split())}

    async def store(db: AsyncSession) -> str:
        calendar = await find_calendar(db, who, calendar_id, now)
        before = calendar.name
        data = accepted(*checked(CalendarUpdate, body, not_null=CALENDAR_NOT_NULL))
        await calendars.change(db, principal(who), calendar, data, now=now)
        details = {"from": before, "to": calendar.name}
        await audit(request, who, db, "on_call_calendar.renamed", calendar, calendar.name, details)
        return f"/on-call/{calendar.id}?done=saved"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        calendar = await find_calendar(db, who, calendar_id, now)
        errors = field_errors(exc.problems, ("name",))
        return await _settings(request, who, db, calendar, name=typed, errors=errors, status=422)

    return await stored_or_again(request, store, again)


@router.post("/on-call/{calendar_id}/delete")
async def delete_calendar(request: Request, who: Signed, calendar_id: str) -> Response:
    """Delete a calendar and its shifts after a confirmation; the API's refusals (the
    default calendar, one a policy names) are shown on the settings page."""
    form = await permitted_form(request, who, Action.EDIT)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    try:
        async with db.begin():
            calendar = await find_calendar(db, who, calendar_id, now)
            if not confirmed(form) and calendar.default_of_team_id is None:
                return confirm_page(
                    request,
                    who,
                    section="oncall",
                    question="Delete an on-call calendar",
                    detail=(
                        f"Delete the on-call calendar {calendar.name} with all its shifts, "
                        "overrides and rotation?"
                    ),
                    action=f"/on-call/{calendar.id}/delete",
                    button="Delete the calendar",
                    back=f"/on-call/{calendar.id}/edit",
                )
            await audit(request, who, db, "on_call_calendar.deleted", calendar, calendar.name)
            await calendars.remove(db, calendar)  # refused: the entry is rolled back with it
    except (InvalidRequest, Conflict) as exc:
        refused = (
            field_errors(exc.problems, ())
            if isinstance(exc, InvalidRequest)
            else {FORM_ERROR: exc.message}
        )
        async with db.begin():
            calendar = await find_calendar(db, who, calendar_id, now)
            status = 422 if isinstance(exc, InvalidRequest) else 409
            return await _settings(request, who, db, calendar, errors=refused, status=status)
    return RedirectResponse("/on-call?done=deleted", status_code=303)
