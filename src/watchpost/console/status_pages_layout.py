"""/status-pages/{id}: a page's editor. Its sections and the resources in them, in page
order; adding a section or a resource (a monitor, heartbeat or group with its widget);
removing them; ordering them by Move up / Move down buttons (plain forms: no JavaScript
needed) or by drag and drop (console.js posts the same move, with the section and position
dropped at). Every change goes through the API's own services (status_pages/sections.py,
resources.py: positions, fixed positions, limits) in one transaction with its audit entry.

Moving up from the top of a section goes to the end of the section above; moving down from
its bottom to the top of the section below: so a resource changes section without
JavaScript too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import Subject
from watchpost.console.auth import Viewer, permitted_form, read_db, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.errors import ConsoleRoute
from watchpost.console.forms import field_errors
from watchpost.console.pickers import Picked, find_text, ids_of, of_team, pick
from watchpost.console.status_pages_kit import (
    SECTION,
    Signed,
    addresses,
    audit,
    editor_url,
    notice_for,
    team_page,
)
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.heartbeats.models import Heartbeat, HeartbeatGroup
from watchpost.monitors.models import Monitor, MonitorGroup
from watchpost.people.roles import Action
from watchpost.problems import parse
from watchpost.public_pages.page_data import sections_of
from watchpost.status_pages import resources, sections
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusPageSection
from watchpost.status_pages.rendering import public_name
from watchpost.status_pages.resource_rows import ResourceRow, all_rows
from watchpost.status_pages.resource_types import MANUAL, RESOURCE_KINDS
from watchpost.status_pages.schemas import SectionCreate, SectionUpdate
from watchpost.subscriptions.models import StatusPageSubscriber
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
KINDS: Final[tuple[tuple[str, str, Any, tuple[Any, ...]], ...]] = (
    ("Monitor", "Monitors", Monitor, (Monitor.pronounceable_name, Monitor.url)),
    ("Heartbeat", "Heartbeats", Heartbeat, (Heartbeat.name,)),
    ("MonitorGroup", "Monitor groups", MonitorGroup, (MonitorGroup.name,)),
    ("HeartbeatGroup", "Heartbeat groups", HeartbeatGroup, (HeartbeatGroup.name,)),
)
"""What a resource can show: (resource_type, heading, model, name columns)."""
WIDGETS: Final[dict[str, str]] = {
    "history": "Status and history bars",
    "plain": "Status only",
    "intraday_history": "Status and detailed (hourly) history",
    "response_times": "Response times chart (monitors only)",
}
KIND_WORDS: Final = {
    "Monitor": "Monitor",
    "Heartbeat": "Heartbeat",
    "MonitorGroup": "Monitor group",
    "HeartbeatGroup": "Heartbeat group",
    "ResourceGroup": "Monitor group",
    MANUAL: "Tracked by hand",
}


@dataclass(frozen=True)
class Shown:
    """A resource as the editor lists it."""

    row: ResourceRow
    name: str
    kind: str
    widget: str
    first: bool
    last: bool


@dataclass(frozen=True)
class SectionShown:
    section: StatusPageSection
    label: str
    resources: list[Shown]
    first: bool
    last: bool


async def _item_choices(
    db: AsyncSession, team_id: int, find: str, chosen: str
) -> tuple[list[tuple[str, list[tuple[str, str]]]], list[Picked]]:
    """The team's items by kind: (heading, [(value "Type:id", name)]), each kind's name (or
    URL) containing `find` (pickers.py), the one `chosen` ("Type:id") always; and each
    kind's Picked. The name is the first non-empty of the kind's name columns, taken (and
    ordered by) in the query: a page of a thousand monitors is read as two columns."""
    groups: list[tuple[str, list[tuple[str, str]]]] = []
    picked: list[Picked] = []
    kind, _, raw_id = chosen.partition(":")
    for resource_type, heading, model, names in KINDS:
        named = func.coalesce(*(func.nullif(c, "") for c in names)) if len(names) > 1 else names[0]
        found = await pick(
            db,
            of_team(model, team_id, named),
            model.id,
            named,
            searched=names,
            find=find,
            chosen=ids_of([raw_id]) if kind == resource_type else (),
        )
        picked.append(found)
        if found.items:
            groups.append((heading, [(f"{resource_type}:{i}", n) for i, n in found.items]))
    groups.append(("Other", [(f"{MANUAL}:", "An item tracked by hand (status set by reports)")]))
    return groups, picked


def _layout(
    page_sections: Sequence[StatusPageSection], rows: list[ResourceRow], targets: dict[Any, Any]
) -> list[SectionShown]:
    by_section: dict[int, list[ResourceRow]] = {}
    for row in sorted(rows, key=lambda r: (r.position, r.id)):
        by_section.setdefault(row.status_page_section_id, []).append(row)
    shown = []
    count = len(page_sections)
    for index, section in enumerate(page_sections):
        items = by_section.get(section.id, [])
        listed = [
            Shown(
                row=row,
                name=public_name(row, targets.get((row.resource_type, row.resource_id))),
                kind=KIND_WORDS.get(row.resource_type, row.resource_type),
                widget=WIDGETS.get(row.widget_type, row.widget_type),
                first=index == 0 and n == 0,
                last=index == count - 1 and n == len(items) - 1,
            )
            for n, row in enumerate(items)
        ]
        label = section.name or f"Section {index + 1} (no heading shown)"
        shown.append(SectionShown(section, label, listed, index == 0, index == count - 1))
    return shown


async def editor(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    page: StatusPage,
    *,
    errors: dict[str, str] | None = None,
    typed: dict[str, str] | None = None,
) -> Response:
    """The editor page (also shown again, 422, with a form's errors beside its fields)."""
    rows = await all_rows(db, page_id=page.id)
    targets = await resources.load_targets(db, rows)
    page_sections = await sections_of(db, page)
    subscribers = await db.scalar(
        select(func.count()).where(StatusPageSubscriber.status_page_id == page.id)
    )
    find = find_text(request.query_params.get("find"))
    items, picked = (
        await _item_choices(db, who.team_id, find, (typed or {}).get("item", ""))
        if who.may(Action.EDIT)
        else ([], [])
    )
    return form_page(
        request,
        "status_page.html",
        who,
        errors=errors,
        section=SECTION,
        page=page,
        where=addresses(request, page),
        layout=_layout(page_sections, rows, targets),
        resource_count=len(rows),
        items=items,
        find=find,
        cut=[(k[1], p.note) for k, p in zip(KINDS, picked, strict=False) if p.cut],
        widgets=WIDGETS,
        subscribers=subscribers or 0,
        typed=typed or {},
        notice=notice_for(request),
    )


@router.get("/status-pages/{page_id}")
async def edit_page(request: Request, who: Signed, page_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
    return await editor(request, who, db, await team_page(db, who, page_id))


def _back(page: StatusPage, done: str, anchor: str) -> Response:
    return RedirectResponse(editor_url(page, done, anchor), status_code=303)


async def confirmed_removal(request: Request, who: Viewer) -> bool:
    """Whether a removal's form (CSRF and the editor's right checked) carries `confirm=yes`."""
    return confirmed(await permitted_form(request, who, Action.EDIT))


def ask_removal(
    request: Request,
    who: Viewer,
    page: StatusPage,
    what: str,
    row_id: int,
    *,
    question: str,
    detail: str,
) -> Response:
    """The "are you sure?" page for removing the page's `what` ("section" or "resource")
    of that id, back to the layout on Cancel."""
    return confirm_page(
        request,
        who,
        section=SECTION,
        back=f"/status-pages/{page.id}#layout",
        question=question,
        detail=detail,
        action=f"/status-pages/{page.id}/{what}s/{row_id}/delete",
        button=f"Remove the {what}",
    )


async def _again(
    request: Request,
    who: Viewer,
    page_id: str,
    exc: InvalidRequest,
    shown: dict[str, str],
    typed: dict[str, str],
) -> Response:
    """The editor again with the domain's problems beside the fields (names mapped)."""
    db = await write_db(request)
    async with db.begin():
        page = await team_page(db, who, page_id)
        raw = field_errors(exc.problems, list(shown))
        errors = {shown.get(name, name): message for name, message in raw.items()}
        return await editor(request, who, db, page, errors=errors, typed=typed)


# ------------------------------------------------------------------------ sections


@router.post("/status-pages/{page_id}/sections")
async def add_section(request: Request, who: Signed, page_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    name = str(form.get("section_name", ""))
    db = await write_db(request)
    try:
        async with db.begin():
            page = await team_page(db, who, page_id, lock=True)
            data = parse(SectionCreate, {"name": name})
            section = await sections.create_section(
                db, page=page, data=data, now=request.app.state.ctx.clock.now()
            )
            await audit(
                request, db, who, "status_page_section.created", section_subject(page, section)
            )
    except InvalidRequest as exc:
        return await _again(
            request, who, page_id, exc, {"name": "section_name"}, {"section_name": name}
        )
    return _back(page, "section_added", f"section-{section.id}")


async def _section(db: AsyncSession, page: StatusPage, section_id: str) -> StatusPageSection:
    """The page's section of that id (another page's is a 404)."""
    wanted = object_id(section_id, sections.SECTION)
    return await sections.get_section(db, team_id=page.team_id, page_id=page.id, section_id=wanted)


def section_subject(page: StatusPage, section: StatusPageSection) -> Subject:
    """A section as its audit entries name it: "Company: heading"."""
    name = f"{page.company_name}: {section.name or 'unnamed section'}"
    return (sections.SECTION, section.id, name)


@router.post("/status-pages/{page_id}/sections/{section_id}/move")
async def move_section(request: Request, who: Signed, page_id: str, section_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    return await section_moved(request, who, page_id, section_id, str(form.get("direction", "")))


async def section_moved(
    request: Request, who: Viewer, page_id: str, section_id: str, direction: str
) -> Response:
    """Move a section up or down (checked form and role already)."""
    db = await write_db(request)
    async with db.begin():
        page = await team_page(db, who, page_id, lock=True)
        section = await _section(db, page, section_id)
        ordered = await sections_of(db, page)
        index = next(i for i, s in enumerate(ordered) if s.id == section.id)
        other = index - 1 if direction == "up" else index + 1 if direction == "down" else -1
        if not 0 <= other < len(ordered):
            return _back(page, "unchanged", f"section-{section.id}")
        data = SectionUpdate(position=ordered[other].position)
        await sections.update_section(
            db, page=page, section=section, data=data, sent={"position"}, now=_now(request)
        )
        subject, details = section_subject(page, section), {"position": section.position}
        await audit(request, db, who, "status_page_section.moved", subject, details)
    return _back(page, "moved", f"section-{section.id}")


@router.post("/status-pages/{page_id}/sections/{section_id}/delete")
async def delete_section(request: Request, who: Signed, page_id: str, section_id: str) -> Response:
    return await section_removed(
        request, who, page_id, section_id, confirmed=await confirmed_removal(request, who)
    )


async def section_removed(
    request: Request, who: Viewer, page_id: str, section_id: str, *, confirmed: bool
) -> Response:
    """Ask, then (confirmed) remove a section with its resources."""
    db = await write_db(request)
    async with db.begin():
        page = await team_page(db, who, page_id, lock=True)
        section = await _section(db, page, section_id)
        label = section.name or "the unnamed section"
        if not confirmed:
            held = await db.scalar(
                select(func.count()).where(StatusPageResource.status_page_section_id == section.id)
            )
            return ask_removal(
                request,
                who,
                page,
                "section",
                section.id,
                question=f"Remove {label}?",
                detail=f"Its {held or 0} resources are removed from the page with it.",
            )
        await audit(
            request,
            db,
            who,
            "status_page_section.deleted",
            (sections.SECTION, section.id, f"{page.company_name}: {label}"),
        )
        await sections.delete_section(db, page=page, section=section)
    return _back(page, "removed", "layout")


def _now(request: Request) -> Any:
    return request.app.state.ctx.clock.now()


assert set(WIDGETS) <= {w for kind in RESOURCE_KINDS.values() for w in kind.widgets}
