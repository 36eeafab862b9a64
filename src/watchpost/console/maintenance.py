"""/maintenance-windows: the daily maintenance windows of the team's monitors and heartbeats.

A window is not an object of its own in the API: each monitor and heartbeat has its
`maintenance_from`, `maintenance_to`, `maintenance_timezone` and `maintenance_days`
(maintenance_windows.py). The console shows a window as those four values shared by one or
more monitors and heartbeats ("which monitors it covers"), grouped and paged in SQL. Creating
a window sets it on the chosen monitors and heartbeats, editing sets the new values on the
ones still chosen and clears it on the ones no longer chosen, deleting clears it on all:
every change goes through the same update_from_body the API's PATCH uses (its rules, its
`updated` announcement), in one transaction with one audit entry. A window is named in URLs
by its four values (`?from=02:00:00&to=03:00:00&tz=UTC&days=mon,tue`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Annotated, Any, Final
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import String, and_, cast, func, literal, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import record
from watchpost.console.account import actor
from watchpost.console.auth import Viewer, checked_form, viewer, write_db
from watchpost.console.errors import ConsoleRoute
from watchpost.console.forms import field_errors
from watchpost.console.team_audit import _number
from watchpost.console.web import render
from watchpost.errors import InvalidRequest, NotFound
from watchpost.heartbeats import service as heartbeats
from watchpost.heartbeats.models import Heartbeat
from watchpost.http.deps import request_sessions
from watchpost.maintenance_windows import (
    WEEKDAYS,
    in_maintenance,
    maintenance_end,
    maintenance_intervals,
    weekdays_in_order,
)
from watchpost.monitors import service as monitors
from watchpost.monitors.models import Monitor
from watchpost.people.roles import Action

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
Signed = Annotated[Viewer, Depends(viewer)]
SECTION: Final = "maintenance"
PATH: Final = "/maintenance-windows"
PER_PAGE: Final = 25
SHOWN: Final = 10
"""At most this many covered monitors and heartbeats are named per window in the list."""
MAX_CHOICES: Final = 1000
"""At most this many monitors (and as many heartbeats) are offered in the form."""
DAY_WORDS: Final = dict(
    zip(WEEKDAYS, ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), strict=True)
)
NOTICES: Final = {
    "created": "Maintenance window created.",
    "saved": "Maintenance window saved.",
    "deleted": "Maintenance window deleted: its monitors and heartbeats have none now.",
}
FIELDS: Final = ("maintenance_from", "maintenance_to", "maintenance_timezone", "maintenance_days")


@dataclass(frozen=True)
class Window:
    """A window's four values (days in week order; none: every day)."""

    maintenance_from: str
    maintenance_to: str
    maintenance_timezone: str
    days: tuple[str, ...]

    @property
    def maintenance_days(self) -> list[str]:
        return list(self.days)

    @property
    def query(self) -> str:
        return urlencode(
            {
                "from": self.maintenance_from,
                "to": self.maintenance_to,
                "tz": self.maintenance_timezone,
                "days": ",".join(self.days),
            }
        )

    @property
    def schedule(self) -> str:
        hours = f"{self.maintenance_from[:5]} to {self.maintenance_to[:5]}"
        if self.maintenance_to <= self.maintenance_from:
            hours += " (next day)"
        days = ", ".join(DAY_WORDS[d] for d in self.days) if self.days else "Every day"
        return f"{days}, {hours} {self.maintenance_timezone}"


@dataclass
class Listed:
    window: Window
    count: int = 0
    covers: list[tuple[str, int, str]] = field(default_factory=list)
    """(kind, id, name) of the first few monitors and heartbeats it covers."""
    now_until: datetime | None = None
    next_start: datetime | None = None


def _days(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = []
    return tuple(weekdays_in_order([str(d) for d in raw or []]))


def _window_of(row: Any) -> Window:
    return Window(row.w_from, row.w_to, row.w_zone or "UTC", _days(row.w_days))


def _rows(team_id: int) -> Any:
    """Every windowed monitor and heartbeat of the team: kind, id, name and the window."""

    def of(model: Any, kind: str, name: Any) -> Any:
        return select(
            literal(kind).label("kind"),
            model.id.label("id"),
            name.label("name"),
            model.maintenance_from.label("w_from"),
            model.maintenance_to.label("w_to"),
            model.maintenance_timezone.label("w_zone"),
            cast(model.maintenance_days, String).label("w_days"),
        ).where(model.team_id == team_id, model.maintenance_from.is_not(None))

    monitor_name = func.coalesce(Monitor.pronounceable_name, Monitor.url)
    return union_all(
        of(Monitor, "monitor", monitor_name), of(Heartbeat, "heartbeat", Heartbeat.name)
    ).subquery()


async def _page(
    db: AsyncSession, team_id: int, page: int, now: datetime
) -> tuple[list[Listed], bool]:
    rows = _rows(team_id)
    keys = (rows.c.w_from, rows.c.w_to, rows.c.w_zone, rows.c.w_days)
    grouped = await db.execute(
        select(*keys, func.count().label("n"))
        .group_by(*keys)
        .order_by(*keys)
        .offset((page - 1) * PER_PAGE)
        .limit(PER_PAGE + 1)
    )
    found = list(grouped)
    more = len(found) > PER_PAGE
    listed: dict[Window, Listed] = {}
    raw_keys = []
    for row in found[:PER_PAGE]:
        window = _window_of(row)
        item = listed.setdefault(window, Listed(window))
        item.count += int(row.n)
        raw_keys.append((row.w_from, row.w_to, row.w_zone, row.w_days))
    if raw_keys:
        number = func.row_number().over(partition_by=keys, order_by=(rows.c.name, rows.c.id))
        first = (
            select(rows, number.label("rn"))
            .where(
                or_(*(and_(*(k == v for k, v in zip(keys, key, strict=True))) for key in raw_keys))
            )
            .subquery()
        )
        named = await db.execute(select(first).where(first.c.rn <= SHOWN).order_by(first.c.name))
        for row in named:
            item = listed[_window_of(row)]
            if len(item.covers) < SHOWN:
                item.covers.append((row.kind, row.id, row.name))
    for item in listed.values():
        if in_maintenance(item.window, now):
            item.now_until = maintenance_end(item.window, now)
        upcoming = maintenance_intervals(item.window, now, now + timedelta(days=8))
        starts = [low for low, _ in upcoming if low > now]
        item.next_start = starts[0] if starts else None
    return list(listed.values()), more


@router.get(PATH)
async def windows_page(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    page = _number(request.query_params.get("page"), 1, 10**6)
    db = await request_sessions(request).read()
    now = request.app.state.ctx.clock.now()
    windows, more = await _page(db, who.team_id, page, now)
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


# -------------------------------------------------------------------------------- forms


def _window_from_query(query: Mapping[str, Any], prefix: str = "") -> Window:
    """The window a URL or a form's hidden fields name (a 404 when incomplete)."""
    start = str(query.get(prefix + "from", ""))
    end = str(query.get(prefix + "to", ""))
    zone = str(query.get(prefix + "tz", "")) or "UTC"
    days = [d for d in str(query.get(prefix + "days", "")).split(",") if d]
    if not start or not end or any(d not in WEEKDAYS for d in days):
        raise NotFound("maintenance window", start)
    return Window(start, end, zone, tuple(weekdays_in_order(days)))


async def _choices(
    db: AsyncSession, team_id: int
) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    name = func.coalesce(Monitor.pronounceable_name, Monitor.url)
    found_monitors = await db.execute(
        select(Monitor.id, name)
        .where(Monitor.team_id == team_id)
        .order_by(name, Monitor.id)
        .limit(MAX_CHOICES)
    )
    found_heartbeats = await db.execute(
        select(Heartbeat.id, Heartbeat.name)
        .where(Heartbeat.team_id == team_id)
        .order_by(Heartbeat.name, Heartbeat.id)
        .limit(MAX_CHOICES)
    )
    return [(i, n) for i, n in found_monitors], [(i, n) for i, n in found_heartbeats]


async def _covered(db: AsyncSession, team_id: int, window: Window) -> tuple[list[int], list[int]]:
    """The ids of the team's monitors and heartbeats in exactly this window."""
    found: dict[str, list[int]] = {"monitor": [], "heartbeat": []}
    rows = _rows(team_id)
    answer = await db.execute(
        select(rows.c.kind, rows.c.id, rows.c.w_days).where(
            rows.c.w_from == window.maintenance_from,
            rows.c.w_to == window.maintenance_to,
            rows.c.w_zone == window.maintenance_timezone,
        )
    )
    for kind, object_id_, days in answer:
        if _days(days) == window.days:
            found[kind].append(int(object_id_))
    return found["monitor"], found["heartbeat"]


async def _form(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    *,
    window: Window | None,
    values: Mapping[str, Any],
    errors: dict[str, str] | None = None,
) -> Response:
    monitor_choices, heartbeat_choices = await _choices(db, who.team_id)
    return render(
        request,
        "maintenance_form.html",
        status=422 if errors else 200,
        viewer=who,
        section=SECTION,
        title="New maintenance window" if window is None else "Edit maintenance window",
        window=window,
        action=f"{PATH}/new" if window is None else f"{PATH}/edit",
        weekdays=list(DAY_WORDS.items()),
        monitors=monitor_choices,
        heartbeats=heartbeat_choices,
        max_choices=MAX_CHOICES,
        values=values,
        errors=errors or {},
    )


@router.get(PATH + "/new")
async def new_window(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    db = await request_sessions(request).read()
    values = {
        "maintenance_timezone": "UTC",
        "maintenance_days": [],
        "monitors": [],
        "heartbeats": [],
    }
    return await _form(request, who, db, window=None, values=values)


@router.get(PATH + "/edit")
async def edit_window(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    window = _window_from_query(request.query_params)
    db = await request_sessions(request).read()
    monitor_ids, heartbeat_ids = await _covered(db, who.team_id, window)
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
    return await _form(request, who, db, window=window, values=values)


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
    found = []
    for value in values:
        if not value.isascii() or not value.isdigit() or len(value) > 18:
            raise NotFound("object", value[:40])
        found.append(int(value))
    return found


async def _apply(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    body: dict[str, Any],
    monitor_ids: Sequence[int],
    heartbeat_ids: Sequence[int],
) -> None:
    """The body on each monitor and heartbeat named (each the team's, else a 404), through
    the API's update path."""
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    for found in monitor_ids:
        monitor = await monitors.get_monitor(db, team_id=who.team_id, monitor_id=found)
        await monitors.update_from_body(
            db, monitor=monitor, team_name=who.team_name, body=dict(body), box=ctx.box, now=now
        )
    for found in heartbeat_ids:
        heartbeat = await heartbeats.get_heartbeat(db, team_id=who.team_id, heartbeat_id=found)
        await heartbeats.update_from_body(
            db, heartbeat=heartbeat, team_name=who.team_name, body=dict(body), now=now
        )


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
                dropped: tuple[list[int], list[int]] = ([], [])
                if old is not None:
                    was_m, was_h = await _covered(db, who.team_id, old)
                    dropped = (
                        [i for i in was_m if i not in monitor_ids],
                        [i for i in was_h if i not in heartbeat_ids],
                    )
                    await _apply(request, who, db, dict(CLEARED), *dropped)
                await _apply(request, who, db, body, monitor_ids, heartbeat_ids)
                await record(
                    db,
                    team_id=who.team_id,
                    actor=actor(request, who),
                    action="maintenance_window." + ("created" if old is None else "updated"),
                    now=request.app.state.ctx.clock.now(),
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
        return await _form(request, who, db, window=old, values=values, errors=errors)


@router.post(PATH + "/new")
async def create_window(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    return await _save(request, who, old=None, form=form)


@router.post(PATH + "/edit")
async def update_window(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    old = _window_from_query(form, "old_")
    return await _save(request, who, old=old, form=form)


@router.post(PATH + "/delete")
async def delete_window(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    window = _window_from_query(form)
    db = await write_db(request)
    async with db.begin():
        monitor_ids, heartbeat_ids = await _covered(db, who.team_id, window)
        if not monitor_ids and not heartbeat_ids:
            raise NotFound("maintenance window", window.query)
        if str(form.get("confirm", "")) != "yes":
            count = len(monitor_ids) + len(heartbeat_ids)
            return render(
                request,
                "confirm.html",
                viewer=who,
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
        await _apply(request, who, db, dict(CLEARED), monitor_ids, heartbeat_ids)
        await record(
            db,
            team_id=who.team_id,
            actor=actor(request, who),
            action="maintenance_window.deleted",
            now=request.app.state.ctx.clock.now(),
            subject_type="maintenance_window",
            subject=window.schedule[:300],
            details={"monitors": monitor_ids, "heartbeats": heartbeat_ids},
        )
    return RedirectResponse(f"{PATH}?done=deleted", status_code=303)
