"""Routes of /api/v1/sources and /api/v1/source-groups."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.http.body import JsonObject, parse
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, resource, single
from watchpost.http.errors import error_responses, object_id
from watchpost.http.openapi import ListDoc, SingleDoc, request_body
from watchpost.http.pagination import Paging
from watchpost.sources import lists, service
from watchpost.sources.models import Source, SourceGroup
from watchpost.sources.platforms import NOT_NULL_FIELDS, platforms_markdown
from watchpost.sources.schemas import (
    SOURCE_GROUP_NOT_NULL,
    SourceAttributes,
    SourceCreate,
    SourceGroupAttributes,
    SourceGroupCreate,
    SourceGroupUpdate,
    SourceUpdate,
    parse_source_create,
    parse_source_update,
)

sources = APIRouter(prefix="/api/v1/sources", tags=["sources"])
groups = APIRouter(prefix="/api/v1/source-groups", tags=["source groups"])

READ_ERRORS = error_responses(401, 404)
WRITE_ERRORS = error_responses(400, 401, 404, 415, 422)
LIST_ERRORS = error_responses(401, 422)


class SourceView:
    """Renders sources for one request: team name and ingesting host are the same for all."""

    def __init__(self, request: Request, caller: Caller, ctx: Context) -> None:
        self.team_name = caller.team_name
        self.host = service.ingesting_host(ctx.settings, request.url.hostname)
        self.box = ctx.box

    def one(self, source: Source) -> dict[str, Any]:
        row = lists.SOURCE_COLUMNS.row(source)
        return lists.source_resources(
            [row], team_name=self.team_name, host=self.host, box=self.box
        )[0]


def _group(group: SourceGroup) -> dict[str, object]:
    return resource(service.GROUP, group.id, service.group_attributes(group))


# ------------------------------------------------------------------------------- sources


@sources.post(
    "",
    status_code=201,
    summary="Create a source",
    description=platforms_markdown(),
    responses={201: {"model": SingleDoc[SourceAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(SourceCreate),
)
async def create_source(
    request: Request, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    data = parse_source_create(body)
    async with db.begin():
        source = await service.create_source(
            db, team_id=caller.team_id, data=data, box=ctx.box, now=ctx.clock.now()
        )
    return single(SourceView(request, caller, ctx).one(source), status=201)


@sources.get(
    "",
    summary="List sources",
    responses={200: {"model": ListDoc[SourceAttributes]}, **LIST_ERRORS},
)
async def list_sources(
    request: Request, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
) -> Response:
    page = await lists.list_sources(
        db,
        team_id=caller.team_id,
        team_name=caller.team_name,
        host=service.ingesting_host(ctx.settings, request.url.hostname),
        box=ctx.box,
        paging=paging,
    )
    return listing(page.data, page.links)


@sources.get(
    "/{source_id}",
    summary="Get a source",
    responses={200: {"model": SingleDoc[SourceAttributes]}, **READ_ERRORS},
)
async def get_source(
    source_id: str, request: Request, caller: Caller, ctx: Context, db: ReadDb
) -> Response:
    source = await service.get_source(
        db, team_id=caller.team_id, source_id=object_id(source_id, service.SOURCE)
    )
    return single(SourceView(request, caller, ctx).one(source))


@sources.patch(
    "/{source_id}",
    summary="Update a source",
    description=(
        "Changes name, ingesting_paused, retentions, live_tail_pattern or source_group_id "
        "(null ungroups). `platform` cannot change; the table name never follows a rename."
    ),
    responses={200: {"model": SingleDoc[SourceAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(SourceUpdate, not_null=(*NOT_NULL_FIELDS, "platform")),
)
async def update_source(
    source_id: str, request: Request, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    sid = object_id(source_id, service.SOURCE)
    async with db.begin():
        source = await service.get_source(db, team_id=caller.team_id, source_id=sid)
        data = parse_source_update(body, platform=source.platform)
        await service.update_source(
            db, source=source, data=data, sent=set(data.model_fields_set), now=ctx.clock.now()
        )
    return single(SourceView(request, caller, ctx).one(source))


@sources.delete("/{source_id}", status_code=204, summary="Delete a source", responses=READ_ERRORS)
async def delete_source(source_id: str, caller: Caller, db: WriteDb) -> Response:
    sid = object_id(source_id, service.SOURCE)
    async with db.begin():
        source = await service.get_source(db, team_id=caller.team_id, source_id=sid)
        await service.delete_source(db, source=source)
    return no_content()


# ------------------------------------------------------------------------- source groups


@groups.post(
    "",
    status_code=201,
    summary="Create a source group",
    responses={201: {"model": SingleDoc[SourceGroupAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(SourceGroupCreate),
)
async def create_group(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = parse(SourceGroupCreate, body)
    async with db.begin():
        group = await service.create_group(
            db, team_id=caller.team_id, data=data, now=ctx.clock.now()
        )
    return single(_group(group), status=201)


@groups.get(
    "",
    summary="List source groups",
    responses={200: {"model": ListDoc[SourceGroupAttributes]}, **LIST_ERRORS},
)
async def list_groups(caller: Caller, db: ReadDb, paging: Paging) -> Response:
    page = await lists.list_groups(db, team_id=caller.team_id, paging=paging)
    return listing(page.data, page.links)


@groups.get(
    "/{group_id}",
    summary="Get a source group",
    responses={200: {"model": SingleDoc[SourceGroupAttributes]}, **READ_ERRORS},
)
async def get_group(group_id: str, caller: Caller, db: ReadDb) -> Response:
    group = await service.get_group(
        db, team_id=caller.team_id, group_id=object_id(group_id, service.GROUP)
    )
    return single(_group(group))


@groups.get(
    "/{group_id}/sources",
    summary="List a source group's sources",
    responses={200: {"model": ListDoc[SourceAttributes]}, **error_responses(401, 404, 422)},
)
async def list_group_sources(
    group_id: str, request: Request, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
) -> Response:
    gid = object_id(group_id, service.GROUP)
    await service.get_group(db, team_id=caller.team_id, group_id=gid)
    page = await lists.list_sources(
        db,
        team_id=caller.team_id,
        team_name=caller.team_name,
        host=service.ingesting_host(ctx.settings, request.url.hostname),
        box=ctx.box,
        paging=paging,
        group_id=gid,
    )
    return listing(page.data, page.links)


@groups.patch(
    "/{group_id}",
    summary="Update a source group",
    responses={200: {"model": SingleDoc[SourceGroupAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(SourceGroupUpdate, not_null=SOURCE_GROUP_NOT_NULL),
)
async def update_group(
    group_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    gid = object_id(group_id, service.GROUP)
    data = parse(SourceGroupUpdate, body)
    async with db.begin():
        group = await service.get_group(db, team_id=caller.team_id, group_id=gid)
        await service.update_group(
            db, group=group, data=data, sent=set(data.model_fields_set), now=ctx.clock.now()
        )
    return single(_group(group))


@groups.delete(
    "/{group_id}",
    status_code=204,
    summary="Delete a source group (its sources stay, ungrouped)",
    responses=READ_ERRORS,
)
async def delete_group(group_id: str, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    gid = object_id(group_id, service.GROUP)
    async with db.begin():
        group = await service.get_group(db, team_id=caller.team_id, group_id=gid)
        await service.delete_group(db, group=group, now=ctx.clock.now())
    return no_content()


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (sources, groups)
