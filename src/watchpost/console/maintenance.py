"""/maintenance-windows: the daily maintenance windows of the team's monitors and heartbeats.

A window is not an object of its own in the API: each monitor and heartbeat has its
`maintenance_from`, `maintenance_to`, `maintenance_timezone` and `maintenance_days`
(maintenance_windows.py). The console shows a window as those four values shared by one or
more monitors and heartbeats ("which monitors it covers"), grouped and paged in SQL
(maintenance_data.py holds the window value and those reads). Creating
a window sets it on the chosen monitors and heartbeats, editing sets the new values on the
ones still chosen and clears it on the ones no longer chosen, deleting clears it on all:
every change goes through the same update_from_body the API's PATCH uses (its rules, its
`updated` announcement), in one transaction with one audit entry. A window is named in URLs
by its four values (`?from=02:00:00&to=03:00:00&tz=UTC&days=mon,tue`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import record
from watchpost.console import maintenance_data
from watchpost.console.account import actor
from watchpost.console.auth import Viewer, permitted_form, read_db, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.forms import field_errors
from watchpost.console.maintenance_data import Window
from watchpost.console.notices import object_notices
from watchpost.console.pickers import find_text, ids_of
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page, render
from watchpost.errors import InvalidRequest, NotFound
from watchpost.heartbeats import service as heartbeats
from watchpost.http.deps import request_sessions
from watchpost.maintenance_windows import weekdays_in_order
from watchpost.monitors import service as monitors
from watchpost.people.roles import Action
from watchpost.validation import parse_id
from watchpost.writing import Writing

router = console_router()
SECTION: Final = "maintenance"
PATH: Final = "/maintenance-windows"
NOTICES: Final = object_notices(
    "Maintenance window",
    deleted="Maintenance window deleted: its monitors and heartbeats have none now.",
)
FIELDS: Final = ("maintenance_from", "maintenance_to", "maintenance_timezone", "maintenance_days")


@router.get(PATH)
async def windows_page(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    page = number(request.query_params.get("page"), 1, 10**6)
    db = await request_sessions(request).read()
    now = request.app.state.ctx.clock.now()
    windows, more = await maintenance_data.window_page(db, who.team_id, page, now)
    return render(
        request,
        "maintenance_windows.html",
        viewer=who,
        section=SECTION,
        title="Maintenance windows",
        windows=windows,
        page_number=page,
        prev=f"{PATH}?page={page - 1}" if page > 1 else None,
        next=f"{PATH}?page={page + 1}" if more else None,
        notice=NOTICES.get(request.query_params.get("done", "")),
    )


async def _form(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    *,
    window: Window | None,
    values: Mapping[str, Any],
    errors: dict[str, str] | None = None,
    find: str = "",
) -> Response:
    monitor_choices, heartbeat_choices = await maintenance_data.choices(
        db,
        who.team_id,
        find=find,
        monitors=ids_of(values.get("monitors", [])),
        heartbeats=ids_of(values.get("heartbeats", [])),
    )
    named: dict[str, str] = (
        {} if window is None else dict(parse_qsl(window.query, keep_blank_values=True))
    )
    return form_page(
        request,
        "maintenance_form.html",
        who,
        errors=errors,
        section=SECTION,
        title="New maintenance window" if window is None else "Edit maintenance window",
        window=window,
        action=f"{PATH}/new" if window is None else f"{PATH}/edit",
        weekdays=list(maintenance_data.DAY_WORDS.items()),
        monitors=monitor_choices,
        heartbeats=heartbeat_choices,
        find=find,
        find_action=f"{PATH}/new" if window is None else f"{PATH}/edit",
        find_hidden=named,
        values=values,
    )


@router.get(PATH + "/new")
async def new_window(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.EDIT)
    values = {
        "maintenance_timezone": "UTC",
        "maintenance_days": [],
        "monitors": [],
        "heartbeats": [],
    }
    find = find_text(request.query_params.get("find"))
    return await _form(request, who, db, window=None, values=values, find=find)


@router.get(PATH + "/edit")
async def edit_window(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    window = maintenance_data.window_from_query(request.query_params)
    db = await request_sessions(request).read()
    monitor_ids, heartbeat_ids = await maintenance_data.covered(db, who.team_id, window)
    if not monitor_ids and not heartbeat_ids:
        raise NotFound("maintenance window", window.query)
    values = {
        "maintenance_from": window.maintenance_from[:5],
        "maintenance_to": window.maintenance_to[:5],
        "maintenance_timezone": window.maintenance_timezone,
        "maintenance_days": list(window.days),
        "monitors": [str(i) for i in monitor_ids],
        "heartbeats": [str(i) for i in heartbeat_ids],
    }
    find = find_text(request.query_params.get("find"))
    return await _form(request, who, db, window=window, values=values, find=find)


def _posted(form: Any) -> dict[str, Any]:
    return {
        "maintenance_from": str(form.get("maintenance_from", "")).strip(),
        "maintenance_to": str(form.get("maintenance_to", "")).strip(),
        "maintenance_timezone": str(form.get("maintenance_timezone", "")).strip(),
        "maintenance_days": [str(d) for d in form.getlist("maintenance_days")],
        "monitors": [str(i) for i in form.getlist("monitors")],
        "heartbeats": [str(i) for i in form.getlist("heartbeats")],
    }


def _ids(values: Sequence[str]) -> list[int]:
    """The ids a form names; a value that is no id names nothing (404)."""
    found = []
    for value in values:
        parsed = parse_id(value)
        if parsed is None:
            raise NotFound("object", value[:40])
        found.append(parsed)
    return found


async def _apply(
    write: Writing, body: dict[str, Any], monitor_ids: Sequence[int], heartbeat_ids: Sequence[int]
) -> None:
    """The body on each monitor and heartbeat named (each the team's, else a 404), through
    the API's update path."""
    db, team_id = write.session, write.team_id
    for found in monitor_ids:
        monitor = await monitors.get_monitor(db, team_id=team_id, monitor_id=found)
        await monitors.update_from_body(write, monitor, dict(body))
    for found in heartbeat_ids:
        heartbeat = await heartbeats.get_heartbeat(db, team_id=team_id, heartbeat_id=found)
        await heartbeats.update_from_body(write, heartbeat, dict(body))


CLEARED: Final[dict[str, Any]] = {
    "maintenance_from": None,
    "maintenance_to": None,
    "maintenance_days": [],
}


def _body(values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    errors: dict[str, str] = {}
    if not values["maintenance_from"]:
        errors["maintenance_from"] = 'Give the time it starts, "HH:MM"'
    if not values["maintenance_to"]:
        errors["maintenance_to"] = 'Give the time it ends, "HH:MM"'
    if not values["monitors"] and not values["heartbeats"]:
        errors["covers"] = "Choose at least one monitor or heartbeat"
    body = {
        "maintenance_from": values["maintenance_from"],
        "maintenance_to": values["maintenance_to"],
        "maintenance_timezone": values["maintenance_timezone"] or "UTC",
        "maintenance_days": values["maintenance_days"],
    }
    return body, errors


async def _save(request: Request, who: Viewer, *, old: Window | None, form: Any) -> Response:
    values = _posted(form)
    body, errors = _body(values)
    monitor_ids, heartbeat_ids = _ids(values["monitors"]), _ids(values["heartbeats"])
    db = await write_db(request)
    if not errors:
        try:
            async with db.begin():
                write = Writing.of(db, who, request.app.state.ctx)
                dropped: tuple[list[int], list[int]] = ([], [])
                if old is not None:
                    was_m, was_h = await maintenance_data.covered(db, who.team_id, old)
                    dropped = (
                        [i for i in was_m if i not in monitor_ids],
                        [i for i in was_h if i not in heartbeat_ids],
                    )
                    await _apply(write, dict(CLEARED), *dropped)
                await _apply(write, body, monitor_ids, heartbeat_ids)
                await record(
                    db,
                    team_id=who.team_id,
                    actor=actor(request, who),
                    action="maintenance_window." + ("created" if old is None else "updated"),
                    now=write.now,
                    subject_type="maintenance_window",
                    subject=Window(
                        str(body["maintenance_from"]),
                        str(body["maintenance_to"]),
                        str(body["maintenance_timezone"]),
                        tuple(weekdays_in_order(body["maintenance_days"])),
                    ).schedule[:300],
                    details={
                        "monitors": monitor_ids,
                        "heartbeats": heartbeat_ids,
                        "cleared_monitors": dropped[0],
                        "cleared_heartbeats": dropped[1],
                    },
                )
        except InvalidRequest as exc:
            errors = field_errors(exc.problems, FIELDS)
        else:
            return RedirectResponse(
                f"{PATH}?done={'created' if old is None else 'saved'}", status_code=303
            )
    async with db.begin():
        return await _form(
            request,
            who,
            db,
            window=old,
            values=values,
            errors=errors,
            find=find_text(form.get("find")),
        )


@router.post(PATH + "/new")
async def create_window(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    return await _save(request, who, old=None, form=form)


@router.post(PATH + "/edit")
async def update_window(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    old = maintenance_data.window_from_query(form, "old_")
    return await _save(request, who, old=old, form=form)


@router.post(PATH + "/delete")
async def delete_window(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    window = maintenance_data.window_from_query(form)
    db = await write_db(request)
    async with db.begin():
        monitor_ids, heartbeat_ids = await maintenance_data.covered(db, who.team_id, window)
        if not monitor_ids and not heartbeat_ids:
            raise NotFound("maintenance window", window.query)
        if not confirmed(form):
            count = len(monitor_ids) + len(heartbeat_ids)
            return confirm_page(
                request,
                who,
                section=SECTION,
                title="Delete a maintenance window",
                question=f"Delete the maintenance window {window.schedule}?",
                detail=f"The {count} monitors and heartbeats it covers are checked at those "
                "times again.",
                action=f"{PATH}/delete",
                fields=[
                    ("from", window.maintenance_from),
                    ("to", window.maintenance_to),
                    ("tz", window.maintenance_timezone),
                    ("days", ",".join(window.days)),
                ],
                button="Delete the window",
                back=PATH,
            )
        write = Writing.of(db, who, request.app.state.ctx)
        await _apply(write, dict(CLEARED), monitor_ids, heartbeat_ids)
        await record(
            db,
            team_id=who.team_id,
            actor=actor(request, who),
            action="maintenance_window.deleted",
            now=write.now,
            subject_type="maintenance_window",
            subject=window.schedule[:300],
            details={"monitors": monitor_ids, "heartbeats": heartbeat_ids},
        )
    return RedirectResponse(f"{PATH}?done=deleted", status_code=303)
