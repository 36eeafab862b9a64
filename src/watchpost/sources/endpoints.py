"""Routes of /api/v1/sources and /api/v2/sources (the same handlers and objects: the hosted
API's Terraform provider uses v2); a source group's sources are listed by groups/."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.context import AppContext
from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb
from watchpost.http.envelope import listing, single
from watchpost.http.pagination import Paging
from watchpost.sources import lists, service
from watchpost.sources.models import Source
from watchpost.sources.platforms import NOT_NULL_FIELDS, platforms_markdown
from watchpost.sources.schemas import (
    SourceAttributes,
    SourceCreate,
    SourceUpdate,
)
from watchpost.teams.service import Principal

sources = APIRouter(prefix="/api/v1/sources", tags=["sources"])
"""Served at /api/v2/sources too (routes.py, PREFIX_ALIASES)."""


def ingesting_of(request: Request, ctx: AppContext) -> service.Ingesting:
    return service.ingesting(ctx.settings, request.url.scheme, request.url.netloc)


class SourceView:
    """Renders sources for one request: team name and ingesting address are the same for all."""

    def __init__(self, request: Request, caller: Principal, ctx: AppContext) -> None:
        self.team_name = caller.team_name
        self.to = ingesting_of(request, ctx)
        self.box = ctx.box

    def one(self, source: Source) -> dict[str, Any]:
        row = lists.SOURCE_COLUMNS.row(source)
        return lists.source_resources([row], team_name=self.team_name, to=self.to, box=self.box)[0]


# ------------------------------------------------------------------------------- sources


source_routes = Routes(sources, SourceAttributes)


_find = Finder(service.get_source, service.SOURCE, "source_id")


@source_routes.create(
    "", summary="Create a source", description=platforms_markdown(), body=SourceCreate
)
async def create_source(
    request: Request, body: JsonObject, caller: Caller, ctx: Context, write: Writer
) -> Response:
    async with write.session.begin():
        source = await service.create_from_body(write, body)
    return single(SourceView(request, caller, ctx).one(source), status=201)


@source_routes.list("", summary="List sources")
async def list_sources(
    request: Request, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
) -> Response:
    page = await lists.list_sources(
        db,
        team_id=caller.team_id,
        team_name=caller.team_name,
        to=ingesting_of(request, ctx),
        box=ctx.box,
        paging=paging,
    )
    return listing(page.data, page.links)


@source_routes.get("/{source_id}", summary="Get a source")
async def get_source(
    source_id: str, request: Request, caller: Caller, ctx: Context, db: ReadDb
) -> Response:
    source = await _find(db, caller, source_id)
    return single(SourceView(request, caller, ctx).one(source))


@source_routes.update(
    "/{source_id}",
    summary="Update a source",
    description=(
        "Changes name, ingesting_paused, retentions, live_tail_pattern, source_group_id "
        "(null or 0 ungroups) and the hosted API's stored settings (null clears one). "
        "`platform`, `data_region` and `custom_bucket` cannot change; the table name never "
        "follows a rename."
    ),
    body=SourceUpdate,
    not_null=(*NOT_NULL_FIELDS, "platform"),
)
async def update_source(
    source_id: str, request: Request, body: JsonObject, caller: Caller, ctx: Context, write: Writer
) -> Response:
    source = await _find.update(write, source_id, body, service.update_from_body)
    return single(SourceView(request, caller, ctx).one(source))


@source_routes.delete("/{source_id}", summary="Delete a source")
async def delete_source(source_id: str, write: Writer) -> Response:
    return await _find.delete(
        write, source_id, lambda write, source: service.delete_source(write.session, source=source)
    )


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (sources,)
