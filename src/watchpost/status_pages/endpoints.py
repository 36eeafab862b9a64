"""Routes of /api/v2/status-pages, its /sections and its /resources."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from watchpost.http.body import JsonObject
from watchpost.http.collection import Collection
from watchpost.http.crud import CHILD_LIST_ERRORS, Routes
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, single
from watchpost.http.errors import error_responses
from watchpost.http.pagination import Paging
from watchpost.plain_groups import PlainGroups
from watchpost.problems import parse
from watchpost.status_pages import (
    group_schemas,
    pages,
    rendering,
    report_endpoints,
    resources,
    sections,
)
from watchpost.status_pages.limits import LIST_HISTORY_DAYS, MAX_RESOURCES, MAX_SECTIONS
from watchpost.status_pages.models import StatusPage, StatusPageGroup
from watchpost.status_pages.resource_types import rules_markdown
from watchpost.status_pages.schemas import (
    PAGE_NOT_NULL,
    RESOURCE_NOT_NULL,
    SECTION_NOT_NULL,
    PageAttributes,
    PageCreate,
    PageUpdate,
    ResourceAttributes,
    ResourceFields,
    SectionAttributes,
    SectionCreate,
    SectionUpdate,
)
from watchpost.validation import object_id

router = APIRouter(prefix="/api/v2/status-pages", tags=["status pages"])


# ---------------------------------------------------------------------------- pages


page_routes = Routes(router, PageAttributes)


@page_routes.create(
    "",
    summary="Create a status page",
    description="`subdomain` is required and unique across the installation; `password` is "
    "write-only and required when `password_enabled` is true.",
    body=PageCreate,
)
async def create_page(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = parse(PageCreate, body)
    now = ctx.clock.now()
    async with db.begin():
        page = await pages.create_page(
            db,
            team_id=caller.team_id,
            team_name=caller.team_name,
            data=data,
            now=now,
        )
        item = await rendering.page_document(db, page, caller, now)
    return single(item, status=201)


@page_routes.list("", summary="List status pages")
async def list_pages(caller: Caller, ctx: Context, db: ReadDb, paging: Paging) -> Response:
    found = await pages.list_pages(db, team_id=caller.team_id, paging=paging)
    now = ctx.clock.now()
    return listing(
        [await rendering.page_document(db, row, caller, now) for row in found.data], found.links
    )


@page_routes.get("/{status_page_id}", summary="Get a status page")
async def get_page(status_page_id: str, caller: Caller, ctx: Context, db: ReadDb) -> Response:
    page = await pages.get_page(
        db, team_id=caller.team_id, page_id=object_id(status_page_id, pages.PAGE)
    )
    return single(await rendering.page_document(db, page, caller, ctx.clock.now()))


@page_routes.update(
    "/{status_page_id}", summary="Update a status page", body=PageUpdate, not_null=PAGE_NOT_NULL
)
async def update_page(
    status_page_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    data = parse(PageUpdate, body)
    now = ctx.clock.now()
    async with db.begin():
        # A group named is locked before the page (plain_groups.py: a DELETE of the group
        # locks it, then the pages naming it; the same order here cannot deadlock with it).
        await pages.group_problems(db, caller.team_id, data.status_page_group_id)
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        await pages.update_page(db, page=page, data=data, sent=set(data.model_fields_set), now=now)
        item = await rendering.page_document(db, page, caller, now)
    return single(item)


@page_routes.delete("/{status_page_id}", summary="Delete a status page, its sections and resources")
async def delete_page(status_page_id: str, caller: Caller, db: WriteDb) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    async with db.begin():
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        await pages.delete_page(db, page=page)
    return no_content()


# ------------------------------------------------------------------------- sections


section_routes = Routes(router, SectionAttributes)


@section_routes.create(
    "/{status_page_id}/sections",
    summary="Create a status page section",
    description="`position` is zero-based; omitted appends; an occupied position shifts the "
    "sections at and after it down. A `fixed_position` section keeps the number it is given "
    f"(docs/api.md, Positions). A page holds at most {MAX_SECTIONS:,} sections (422).",
    body=SectionCreate,
)
async def create_section(
    status_page_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    async with db.begin():
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        data = parse(SectionCreate, body)
        section = await sections.create_section(db, page=page, data=data, now=ctx.clock.now())
    return single(rendering.section_document(section), status=201)


@section_routes.list(
    "/{status_page_id}/sections", summary="List a status page's sections", errors=CHILD_LIST_ERRORS
)
async def list_sections(
    status_page_id: str, caller: Caller, db: ReadDb, paging: Paging
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    await pages.get_page(db, team_id=caller.team_id, page_id=pid)
    found = await sections.list_sections(db, team_id=caller.team_id, page_id=pid, paging=paging)
    return listing((rendering.section_document(row) for row in found.data), found.links)


@section_routes.get("/{status_page_id}/sections/{section_id}", summary="Get a status page section")
async def get_section(status_page_id: str, section_id: str, caller: Caller, db: ReadDb) -> Response:
    section = await sections.get_section(
        db,
        team_id=caller.team_id,
        page_id=object_id(status_page_id, pages.PAGE),
        section_id=object_id(section_id, sections.SECTION),
    )
    return single(rendering.section_document(section))


@section_routes.update(
    "/{status_page_id}/sections/{section_id}",
    summary="Update or move a status page section",
    body=SectionUpdate,
    not_null=SECTION_NOT_NULL,
)
async def update_section(
    status_page_id: str,
    section_id: str,
    body: JsonObject,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    sid = object_id(section_id, sections.SECTION)
    async with db.begin():
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        section = await sections.get_section(
            db, team_id=caller.team_id, page_id=pid, section_id=sid
        )
        data = parse(SectionUpdate, body)
        await sections.update_section(
            db,
            page=page,
            section=section,
            data=data,
            sent=set(data.model_fields_set),
            now=ctx.clock.now(),
        )
    return single(rendering.section_document(section))


@section_routes.delete(
    "/{status_page_id}/sections/{section_id}",
    summary="Delete a status page section and its resources",
    description="The resources the section holds are deleted with it.",
    errors=error_responses(401, 404, 422),
)
async def delete_section(
    status_page_id: str, section_id: str, caller: Caller, db: WriteDb
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    sid = object_id(section_id, sections.SECTION)
    async with db.begin():
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        section = await sections.get_section(
            db, team_id=caller.team_id, page_id=pid, section_id=sid
        )
        await sections.delete_section(db, page=page, section=section)
    return no_content()


# ------------------------------------------------------------------------ resources


resource_routes = Routes(router, ResourceAttributes)


@resource_routes.create(
    "/{status_page_id}/resources",
    summary="Create a status page resource",
    description=(
        "Every attribute is optional. Without `status_page_section_id` the resource goes to "
        "the page's first section (created when the page has none); without `position` it "
        "is appended; an occupied position shifts the resources at and below it down; a "
        "`fixed_position` one keeps the number it is given (docs/api.md, Positions). "
        "`widget_type` takes preference over `history`. A page "
        f"holds at most {MAX_RESOURCES:,} resources (422).\n\n" + rules_markdown()
    ),
    body=ResourceFields,
)
async def create_resource(
    status_page_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    now = ctx.clock.now()
    async with db.begin():
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        data = parse(ResourceFields, body)
        created = await resources.create_resource(
            db,
            page=page,
            team_name=caller.team_name,
            data=data,
            sent=set(data.model_fields_set),
            now=now,
        )
        (item,) = await rendering.resource_documents(db, page, [created], now)
    return single(item, status=201)


@resource_routes.list(
    "/{status_page_id}/resources",
    summary="List a status page's resources",
    description=f"Each item's `status_history` holds the most recent {LIST_HISTORY_DAYS} days "
    "(all of them when the page's `history` is shorter); `availability` and `status` cover the "
    "page's whole history, as on a single GET, which carries every day.",
    errors=CHILD_LIST_ERRORS,
)
async def list_resources(
    status_page_id: str, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    page = await pages.get_page(db, team_id=caller.team_id, page_id=pid)
    found = await resources.list_resources(db, team_id=caller.team_id, page_id=pid, paging=paging)
    items = await rendering.resource_documents(
        db, page, found.data, ctx.clock.now(), history_days=LIST_HISTORY_DAYS
    )
    return listing(items, found.links)


@resource_routes.get(
    "/{status_page_id}/resources/{resource_id}", summary="Get a status page resource"
)
async def get_resource(
    status_page_id: str, resource_id: str, caller: Caller, ctx: Context, db: ReadDb
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    page = await pages.get_page(db, team_id=caller.team_id, page_id=pid)
    row = await resources.get_resource(
        db,
        team_id=caller.team_id,
        page_id=pid,
        resource_id=object_id(resource_id, resources.RESOURCE),
    )
    (item,) = await rendering.resource_documents(db, page, [row], ctx.clock.now())
    return single(item)


@resource_routes.update(
    "/{status_page_id}/resources/{resource_id}",
    summary="Update or move a status page resource",
    description="A new `status_page_section_id` and/or `position` moves the resource; a "
    "fixed-position one moving within its section swaps places with a fixed one at its "
    "target. The same rules as on create apply to the result.",
    body=ResourceFields,
    not_null=RESOURCE_NOT_NULL,
)
async def update_resource(
    status_page_id: str,
    resource_id: str,
    body: JsonObject,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    rid = object_id(resource_id, resources.RESOURCE)
    now = ctx.clock.now()
    async with db.begin():
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        row = await resources.get_resource(db, team_id=caller.team_id, page_id=pid, resource_id=rid)
        data = parse(ResourceFields, body)
        await resources.update_resource(
            db,
            page=page,
            team_name=caller.team_name,
            resource=row,
            data=data,
            sent=set(data.model_fields_set),
            now=now,
        )
        (item,) = await rendering.resource_documents(db, page, [row], now)
    return single(item)


@resource_routes.delete(
    "/{status_page_id}/resources/{resource_id}", summary="Delete a status page resource"
)
async def delete_resource(
    status_page_id: str, resource_id: str, caller: Caller, db: WriteDb
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    rid = object_id(resource_id, resources.RESOURCE)
    async with db.begin():
        await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        row = await resources.get_resource(db, team_id=caller.team_id, page_id=pid, resource_id=rid)
        await resources.delete_resource(db, resource=row)
    return no_content()


# What routes.py serves: this module's routers, each listed flat in the app.
GROUPS = PlainGroups("status_page_group", StatusPageGroup, StatusPage, "status_page_group_id")
"""Status page groups as a plain collection's service (plain_groups.py)."""

routers = (router, report_endpoints.router, *Collection.of(GROUPS, group_schemas).routers())
