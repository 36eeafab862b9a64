"""Routes of /api/v2/status-pages, its /sections and its /resources."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from watchpost.http.body import JsonObject
from watchpost.http.children import Children
from watchpost.http.collection import Collection
from watchpost.http.crud import Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, single
from watchpost.http.errors import error_responses
from watchpost.http.pagination import Paging
from watchpost.listing import PageRequest
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
from watchpost.status_pages.models import (
    StatusPage,
    StatusPageGroup,
    StatusPageResource,
    StatusPageSection,
)
from watchpost.status_pages.report_endpoints import OnPage, PageChildren, page_keys
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
async def create_page(body: JsonObject, write: Writer) -> Response:
    data = parse(PageCreate, body)
    async with write.session.begin():
        page = await pages.create_page(write, data)
        item = await rendering.page_document(write.session, page, write, write.now)
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


class Sections(PageChildren):
    """A status page's sections."""

    PATH, KEY = "/{status_page_id}/sections", "section_id"
    NOUN, PLURAL = "section", "sections"

    TYPE = sections.SECTION

    async def get(self, at: OnPage, section_id: int, /) -> StatusPageSection:
        return await sections.get_section(at.db, **page_keys(at), section_id=section_id)

    async def answer(self, at: OnPage, section: StatusPageSection, status: int, /) -> Response:
        return single(rendering.section_document(section), status=status)

    async def listed(self, at: OnPage, paging: PageRequest) -> Response:
        found = await sections.list_sections(at.db, **page_keys(at), paging=paging)
        return listing(map(rendering.section_document, found.data), found.links)

    async def make(self, at: OnPage, data: SectionCreate) -> StatusPageSection:
        return await sections.create_section(at.db, page=at.parent, data=data, now=at.now)

    async def change(self, at: OnPage, section: StatusPageSection, data: SectionUpdate) -> None:
        sent = set(data.model_fields_set)
        await sections.update_section(
            at.db, page=at.parent, section=section, data=data, sent=sent, now=at.now
        )

    async def remove(self, at: OnPage, section: StatusPageSection) -> None:
        await sections.delete_section(at.db, page=at.parent, section=section)


SECTIONS = Sections()
section_routes = Children(Routes(router, SectionAttributes), SECTIONS)
section_routes.create(
    SectionCreate,
    summary="Create a status page section",
    description="`position` is zero-based; omitted appends; an occupied position shifts the "
    "sections at and after it down. A `fixed_position` section keeps the number it is given "
    f"(docs/api.md, Positions). A page holds at most {MAX_SECTIONS:,} sections (422).",
)
section_routes.list(SECTIONS.listed, summary="List a status page's sections")
section_routes.get(summary="Get a status page section")
section_routes.update(
    SectionUpdate,
    not_null=SECTION_NOT_NULL,
    summary="Update or move a status page section",
)
section_routes.delete(
    summary="Delete a status page section and its resources",
    description="The resources the section holds are deleted with it.",
    errors=error_responses(401, 404, 422),
)


# ------------------------------------------------------------------------ resources


class Resources(PageChildren):
    """A status page's resources."""

    PATH, KEY = "/{status_page_id}/resources", "resource_id"
    NOUN, PLURAL = "resource", "resources"

    TYPE = resources.RESOURCE

    async def get(self, at: OnPage, resource_id: int, /) -> StatusPageResource:
        return await resources.get_resource(at.db, **page_keys(at), resource_id=resource_id)

    async def answer(self, at: OnPage, row: StatusPageResource, status: int, /) -> Response:
        (item,) = await rendering.resource_documents(at.db, at.parent, [row], at.now)
        return single(item, status=status)

    async def listed(self, at: OnPage, paging: PageRequest) -> Response:
        found = await resources.list_resources(at.db, **page_keys(at), paging=paging)
        items = await rendering.resource_documents(
            at.db, at.parent, found.data, at.now, history_days=LIST_HISTORY_DAYS
        )
        return listing(items, found.links)

    async def make(self, at: OnPage, data: ResourceFields) -> StatusPageResource:
        return await resources.create_resource(
            at.db,
            page=at.parent,
            team_name=at.caller.team_name,
            data=data,
            sent=set(data.model_fields_set),
            now=at.now,
        )

    async def change(self, at: OnPage, row: StatusPageResource, data: ResourceFields) -> None:
        await resources.update_resource(
            at.db,
            page=at.parent,
            team_name=at.caller.team_name,
            resource=row,
            data=data,
            sent=set(data.model_fields_set),
            now=at.now,
        )

    async def remove(self, at: OnPage, row: StatusPageResource) -> None:
        await resources.delete_resource(at.db, resource=row)


RESOURCES = Resources()
resource_routes = Children(Routes(router, ResourceAttributes), RESOURCES)
resource_routes.create(
    ResourceFields,
    summary="Create a status page resource",
    description=(
        "Every attribute is optional. Without `status_page_section_id` the resource goes to "
        "the page's first section (created when the page has none); without `position` it "
        "is appended; an occupied position shifts the resources at and below it down; a "
        "`fixed_position` one keeps the number it is given (docs/api.md, Positions). "
        "`widget_type` takes preference over `history`. A page "
        f"holds at most {MAX_RESOURCES:,} resources (422).\n\n" + rules_markdown()
    ),
)
resource_routes.list(
    RESOURCES.listed,
    summary="List a status page's resources",
    description=f"Each item's `status_history` holds the most recent {LIST_HISTORY_DAYS} days "
    "(all of them when the page's `history` is shorter); `availability` and `status` cover the "
    "page's whole history, as on a single GET, which carries every day.",
)
resource_routes.get(summary="Get a status page resource")
resource_routes.update(
    ResourceFields,
    not_null=RESOURCE_NOT_NULL,
    summary="Update or move a status page resource",
    description="A new `status_page_section_id` and/or `position` moves the resource; a "
    "fixed-position one moving within its section swaps places with a fixed one at its "
    "target. The same rules as on create apply to the result.",
)
resource_routes.delete(summary="Delete a status page resource")


# What routes.py serves: this module's routers, each listed flat in the app.
GROUPS = PlainGroups("status_page_group", StatusPageGroup, StatusPage, "status_page_group_id")
"""Status page groups as a plain collection's service (plain_groups.py)."""

routers = (router, report_endpoints.router, *Collection.of(GROUPS, group_schemas).routers())
