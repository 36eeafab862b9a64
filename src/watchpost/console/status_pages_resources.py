"""/status-pages/{id}/resources: adding a resource to a page (a monitor, heartbeat or group
with its widget), moving it (Move up / Move down, or the section and position a drop
posts) and removing it, through the API's own `resources.py` in one transaction with its
audit entry; errors are shown on the editor (status_pages_layout.editor) beside their field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData

from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.errors import ConsoleRoute
from watchpost.console.status_pages_kit import (
    Signed,
    audit,
    team_page,
)
from watchpost.console.status_pages_layout import (
    _again,
    _back,
    _now,
    ask_removal,
    confirmed_removal,
)
from watchpost.errors import InvalidRequest, NotFound
from watchpost.people.roles import Action
from watchpost.problems import parse
from watchpost.public_pages.page_data import sections_of
from watchpost.status_pages import resources
from watchpost.status_pages.models import StatusPage, StatusPageResource
from watchpost.status_pages.rendering import public_name
from watchpost.status_pages.resource_rows import all_rows
from watchpost.status_pages.schemas import ResourceFields
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)


# ----------------------------------------------------------------------- resources

ADD_FIELDS: Final = {
    "resource_type": "item",
    "resource_id": "item",
    "widget_type": "widget_type",
    "public_name": "public_name",
    "status_page_section_id": "section_id",
    "explanation": "explanation",
}
"""The API's field → the add form's field its problem is shown beside."""


def _add_body(form: FormData) -> tuple[dict[str, Any], dict[str, str]]:
    """The API's body for the add form, and what was typed (kept on a 422)."""
    typed = {
        name: str(form.get(name, ""))
        for name in ("item", "widget_type", "public_name", "section_id", "explanation")
    }
    body: dict[str, Any] = {}
    resource_type, _, item_id = typed["item"].partition(":")
    if resource_type:
        body["resource_type"] = resource_type
        if item_id:
            body["resource_id"] = item_id
    if typed["widget_type"]:
        body["widget_type"] = typed["widget_type"]
    if typed["public_name"].strip():
        body["public_name"] = typed["public_name"]
    if typed["explanation"].strip():
        body["explanation"] = typed["explanation"]
    if typed["section_id"]:
        section = typed["section_id"]
        body["status_page_section_id"] = int(section) if section.isdigit() else section
    return body, typed


@router.post("/status-pages/{page_id}/resources")
async def add_resource(request: Request, who: Signed, page_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    body, typed = _add_body(form)
    db = await write_db(request)
    try:
        async with db.begin():
            page = await team_page(db, who, page_id, lock=True)
            if "resource_type" not in body:
                raise InvalidRequest.field("resource_type", "Choose what the resource shows")
            data = parse(ResourceFields, body)
            created = await resources.create_resource(
                db,
                page=page,
                team_name=who.team_name,
                data=data,
                sent=set(data.model_fields_set),
                now=_now(request),
            )
            shown = typed["public_name"].strip() or typed["item"]
            details = {"resource_type": created.resource_type, "widget_type": created.widget_type}
            await audit_resource(request, db, who, "created", (page, created.id, shown), details)
    except InvalidRequest as exc:
        return await _again(request, who, page_id, exc, ADD_FIELDS, typed)
    return _back(page, "resource_added", f"resource-{created.id}")


async def _resource(db: AsyncSession, page: StatusPage, resource_id: str) -> StatusPageResource:
    """The page's resource of that id (another page's is a 404)."""
    wanted = object_id(resource_id, resources.RESOURCE)
    return await resources.get_resource(
        db, team_id=page.team_id, page_id=page.id, resource_id=wanted
    )


async def change_resource(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    page: StatusPage,
    row: StatusPageResource,
    body: Mapping[str, Any],
) -> None:
    """Updates row with body, checked as the API's resource fields (the fields it names)."""
    data = parse(ResourceFields, body)
    sent, now = set(data.model_fields_set), _now(request)
    await resources.update_resource(
        db, page=page, team_name=who.team_name, resource=row, data=data, sent=sent, now=now
    )


async def _neighbour(
    db: AsyncSession, page: StatusPage, row: StatusPageResource, direction: str
) -> tuple[int, int] | None:
    """(section id, position) a move up or down takes the resource to, or None."""
    ordered = await sections_of(db, page)
    index = next(i for i, s in enumerate(ordered) if s.id == row.status_page_section_id)
    here = sorted(
        (
            r
            for r in await all_rows(db, page_id=page.id)
            if r.status_page_section_id == row.status_page_section_id
        ),
        key=lambda r: (r.position, r.id),
    )
    at = next(i for i, r in enumerate(here) if r.id == row.id)
    if direction == "up":
        if at > 0:
            return row.status_page_section_id, here[at - 1].position
        if index > 0:  # to the end of the section above
            return ordered[index - 1].id, -1
    elif direction == "down":
        if at < len(here) - 1:
            return row.status_page_section_id, here[at + 1].position
        if index < len(ordered) - 1:  # to the top of the section below
            return ordered[index + 1].id, 0
    return None


@router.post("/status-pages/{page_id}/resources/{resource_id}/move")
async def move_resource(request: Request, who: Signed, page_id: str, resource_id: str) -> Response:
    """direction=up|down (the buttons), or section_id and position (a drop: console.js)."""
    form = await permitted_form(request, who, Action.EDIT)
    return await resource_moved(request, who, page_id, resource_id, form)


async def resource_moved(
    request: Request, who: Viewer, page_id: str, resource_id: str, form: Mapping[str, Any]
) -> Response:
    """Move a resource: form's direction (up|down), or its section_id and position."""
    direction = str(form.get("direction", ""))
    dropped = "position" in form
    db = await write_db(request)
    try:
        async with db.begin():
            page = await team_page(db, who, page_id, lock=True)
            row = await _resource(db, page, resource_id)
            if dropped:
                body: dict[str, Any] = {"position": _int(form.get("position"))}
                if form.get("section_id"):
                    body["status_page_section_id"] = _int(form.get("section_id"))
            else:
                target = await _neighbour(db, page, row, direction)
                if target is None:
                    return _back(page, "unchanged", f"resource-{row.id}")
                section_id, position = target
                body = {"status_page_section_id": section_id}
                if position >= 0:
                    body["position"] = position
            await change_resource(request, who, db, page, row, body)
            details = {"section_id": row.status_page_section_id, "position": row.position}
            await audit_resource(
                request, db, who, "moved", (page, row.id, f"resource {row.id}"), details
            )
    except InvalidRequest as exc:
        if dropped and request.headers.get("x-requested-with") == "fetch":
            return Response(str(exc.problems[0][1]), status_code=422, media_type="text/plain")
        return await _again(request, who, page_id, exc, {}, {})
    if request.headers.get("x-requested-with") == "fetch":
        return Response(status_code=204)
    return _back(page, "moved", f"resource-{row.id}")


async def audit_resource(
    request: Request,
    db: AsyncSession,
    who: Viewer,
    change: str,
    resource: tuple[StatusPage, int, str],
    details: dict[str, Any] | None = None,
) -> None:
    """The audit entry `status_page_resource.{change}` of a page's resource (its id and
    shown name)."""
    page, resource_id, shown = resource
    subject = (resources.RESOURCE, resource_id, f"{page.company_name}: {shown}")
    await audit(request, db, who, f"status_page_resource.{change}", subject, details)


def _int(value: object) -> int | str:
    text = str(value or "").strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 10 else text


@router.post("/status-pages/{page_id}/resources/{resource_id}/delete")
async def delete_resource(
    request: Request, who: Signed, page_id: str, resource_id: str
) -> Response:
    return await resource_removed(
        request, who, page_id, resource_id, confirmed=await confirmed_removal(request, who)
    )


async def resource_removed(
    request: Request, who: Viewer, page_id: str, resource_id: str, *, confirmed: bool
) -> Response:
    """Ask, then (confirmed) remove a resource from the page."""
    db = await write_db(request)
    async with db.begin():
        page = await team_page(db, who, page_id, lock=True)
        row = await _resource(db, page, resource_id)
        [shown] = await all_rows_of(db, page, row.id)
        if not confirmed:
            return ask_removal(
                request,
                who,
                page,
                "resource",
                row.id,
                question=f"Remove {shown} from the page?",
                detail="Reports naming it stop showing it. The monitor or heartbeat itself stays.",
            )
        await audit_resource(request, db, who, "deleted", (page, row.id, shown))
        await resources.delete_resource(db, resource=row)
    return _back(page, "removed", "layout")


async def all_rows_of(db: AsyncSession, page: StatusPage, resource_id: int) -> list[str]:
    """The shown name of one resource of the page."""
    rows = [r for r in await all_rows(db, page_id=page.id) if r.id == resource_id]
    if not rows:
        raise NotFound(resources.RESOURCE, resource_id)
    targets = await resources.load_targets(db, rows)
    return [public_name(rows[0], targets.get((rows[0].resource_type, rows[0].resource_id)))]
