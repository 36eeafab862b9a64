"""/policies/urgencies: the team's urgencies (how an escalation step that names one tells
people: e-mail, SMS, call …), listed, created, edited and deleted through the API's service
(urgencies/service.py) with an audit entry. Reading needs Action.READ, changing
Action.EDIT; another team's urgency is a 404. Its router comes before the policies' own, so
that /policies/urgencies is not read as a policy's id."""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, read_db
from watchpost.console.confirming import Asking, audited, delete_confirmed
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import field_errors
from watchpost.console.policies import PER_PAGE, principal
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page, render
from watchpost.errors import InvalidRequest
from watchpost.listing import PageRequest
from watchpost.people.roles import Action
from watchpost.problems import accepted, checked
from watchpost.urgencies import service
from watchpost.urgencies.models import Urgency, UrgencyGroup
from watchpost.urgencies.schemas import (
    DEFAULTS,
    URGENCY_NOT_NULL,
    WAYS,
    UrgencyCreate,
    UrgencyUpdate,
)
from watchpost.validation import object_id

router = console_router()
WAY_WORDS: Final = {
    "email": ("E-mail", "To each person told."),
    "sms": ("SMS", "Through the instance's SMS service (WATCHPOST_SMS_URL)."),
    "call": ("Phone call", "Through the instance's call service (WATCHPOST_CALL_URL)."),
    "push": ("Push notification", "Stored: this instance has no push service."),
    "critical_alert": ("Critical alert", "Stored: this instance has no push service."),
}
FIELDS: Final = ("name", *WAYS, "urgency_group_id")


def ways_of(urgency: Urgency) -> list[str]:
    return [WAY_WORDS[way][0] for way in WAYS if getattr(urgency, way)]


@router.get("/policies/urgencies")
async def urgency_list(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.READ)
    raw = request.query_params.get("page", "1")
    number = min(int(raw), 100_000) if raw.isdigit() and int(raw) > 0 else 1
    paging = PageRequest(
        page=number, per_page=PER_PAGE, base_url="/policies/urgencies", other_params=()
    )
    page = await service.page(db, principal(who), paging)
    return render(
        request,
        "urgency_list.html",
        viewer=who,
        section="policies",
        title="Urgencies",
        rows=[(u, ways_of(u)) for u in page.data],
        page_number=number,
        has_next=page.links.get("next") is not None,
        may_edit=who.may(Action.EDIT),
    )


async def _urgency(db: AsyncSession, who: Viewer, urgency_id: str) -> Urgency:
    found = object_id(urgency_id, "urgency")
    return await service.get(db, team_id=who.team_id, object_id=found)


async def _form(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    urgency: Urgency | None,
    values: dict[str, Any],
    errors: dict[str, str] | None = None,
) -> Response:
    groups = await db.execute(
        select(UrgencyGroup.id, UrgencyGroup.name)
        .where(UrgencyGroup.team_id == who.team_id)
        .order_by(UrgencyGroup.name, UrgencyGroup.id)
        .limit(1000)
    )
    return form_page(
        request,
        "urgency_form.html",
        who,
        errors=errors,
        section="policies",
        title="New urgency" if urgency is None else f"Edit urgency {urgency.name}",
        action="/policies/urgencies/new"
        if urgency is None
        else f"/policies/urgencies/{urgency.id}/edit",
        values=values,
        ways=[(way, *WAY_WORDS[way]) for way in WAYS],
        groups=[(str(gid), name) for gid, name in groups],
    )


@router.get("/policies/urgencies/new")
async def new_urgency(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.EDIT)
    values: dict[str, Any] = {"name": "", "urgency_group_id": "", **DEFAULTS}
    return await _form(request, who, db, None, values)


@router.get("/policies/urgencies/{urgency_id}/edit")
async def edit_urgency(request: Request, who: Signed, urgency_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    urgency = await _urgency(db, who, urgency_id)
    values: dict[str, Any] = {way: getattr(urgency, way) for way in WAYS}
    group = urgency.urgency_group_id
    values |= {"name": urgency.name, "urgency_group_id": "" if group is None else str(group)}
    return await _form(request, who, db, urgency, values)


def _posted(form: Any) -> dict[str, Any]:
    values: dict[str, Any] = {way: form.get(way) is not None for way in WAYS}
    values["name"] = str(form.get("name") or "")
    values["urgency_group_id"] = str(form.get("urgency_group_id") or "")
    return values


def _body(values: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"name": " ".join(values["name"].split())}
    body |= {way: values[way] for way in WAYS}
    group = values["urgency_group_id"].strip()
    body["urgency_group_id"] = (int(group) if group.isdigit() else group) if group else None
    return body


async def _save(request: Request, who: Viewer, urgency_id: str | None) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    values = _posted(form)
    ctx = request.app.state.ctx

    async def store(db: AsyncSession) -> str:
        urgency = None if urgency_id is None else await _urgency(db, who, urgency_id)
        if urgency is None:
            made = accepted(*checked(UrgencyCreate, _body(values)))
            urgency = await service.make(db, principal(who), ctx, made)
            action = "urgency.created"
        else:
            data = accepted(*checked(UrgencyUpdate, _body(values), not_null=URGENCY_NOT_NULL))
            urgency = await service.change(db, principal(who), urgency, ctx, data)
            action = "urgency.updated"
        await audit(
            db, request, who, action, ctx.clock.now(), ("urgency", urgency.id, urgency.name)
        )
        return "/policies/urgencies"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        urgency = None if urgency_id is None else await _urgency(db, who, urgency_id)
        errors = field_errors(exc.problems, FIELDS)
        return await _form(request, who, db, urgency, values, errors)

    return await stored_or_again(request, store, again)


@router.post("/policies/urgencies/new")
async def create_urgency(request: Request, who: Signed) -> Response:
    return await _save(request, who, None)


@router.post("/policies/urgencies/{urgency_id}/edit")
async def update_urgency(request: Request, who: Signed, urgency_id: str) -> Response:
    return await _save(request, who, urgency_id)


@router.post("/policies/urgencies/{urgency_id}/delete")
async def delete_urgency(request: Request, who: Signed, urgency_id: str) -> Response:
    return await delete_confirmed(
        request,
        who,
        "policies",
        find=lambda db: _urgency(db, who, urgency_id),
        ask=lambda urgency: Asking(
            question="Delete an urgency",
            detail=(
                f"Delete the urgency {urgency.name}? The escalation steps naming it will "
                "tell people by e-mail only."
            ),
            action=f"/policies/urgencies/{urgency.id}/delete",
            button="Delete the urgency",
            back="/policies/urgencies",
        ),
        remove=audited(request, who, "urgency", service.remove),
        done="/policies/urgencies?done=deleted",
    )
