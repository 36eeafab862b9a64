"""Routes of /api/v1/collectors and /api/v1/collectors/{id}/targets."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors import databases, metrics, service, target_requests
from watchpost.collectors.models import Collector, CollectorTarget
from watchpost.collectors.schemas import (
    COLLECTOR_NOT_NULL,
    TARGET_NOT_NULL,
    CollectorAttributes,
    CollectorCreate,
    CollectorUpdate,
    DatabaseAttributes,
    MetricSampleAttributes,
    TargetAttributes,
    TargetCreate,
    TargetUpdate,
    parse_collector,
)
from watchpost.collectors.target_kinds import rules_markdown
from watchpost.http.body import JsonObject
from watchpost.http.crud import CHILD_LIST_ERRORS, Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, single
from watchpost.http.pagination import Paging
from watchpost.listing import resource
from watchpost.validation import object_id
from watchpost.writing import Team, Writing

router = APIRouter(prefix="/api/v1/collectors", tags=["collectors"])


def _collector(collector: Collector, ctx: Context, team_name: str) -> dict[str, object]:
    return resource(
        service.COLLECTOR,
        collector.id,
        service.collector_attributes(collector, ctx.box, team_name),
    )


def _target(target: CollectorTarget | Row[Any]) -> dict[str, object]:
    return resource(service.TARGET, target.id, service.target_attributes(target))


async def _apply_databases(
    write: Writing, collector: Collector, data: CollectorCreate | CollectorUpdate
) -> None:
    """The body's `databases`, if it sends any, made the collector's database targets."""
    if data.databases:
        await databases.apply(
            write.session,
            team_id=write.team_id,
            collector_id=collector.id,
            entries=data.databases,
            box=write.box,
            now=write.now,
        )


async def _update_from_body(write: Writing, collector: Collector, body: dict[str, Any]) -> None:
    """A PATCH body checked against the collector's stored settings, then applied."""
    data = parse_collector(
        CollectorUpdate, body, team_name=write.team_name, settings=collector.settings or {}
    )
    sent = set(data.model_fields_set)
    await service.update_collector(
        write.session, collector=collector, data=data, sent=sent, box=write.box, now=write.now
    )
    await _apply_databases(write, collector, data)


collector_routes = Routes(router, CollectorAttributes)


_find = Finder(service.get_collector, service.COLLECTOR, "collector_id")


@collector_routes.create("", summary="Create a collector", body=CollectorCreate)
async def create_collector(body: JsonObject, write: Writer, ctx: Context) -> Response:
    data = parse_collector(CollectorCreate, body, team_name=write.team_name)
    async with write.session.begin():
        collector = await service.create_collector(
            write.session, team_id=write.team_id, data=data, box=write.box, now=write.now
        )
        await _apply_databases(write, collector, data)
    return single(_collector(collector, ctx, write.team_name), status=201)


@collector_routes.list(
    "", summary="List collectors", description="`name` lists only the collector of that name."
)
async def list_collectors(
    caller: Caller,
    ctx: Context,
    db: ReadDb,
    paging: Paging,
    name: Annotated[str | None, Query(max_length=255)] = None,
) -> Response:
    page = await service.list_collectors(db, team_id=caller.team_id, paging=paging, name=name)
    return listing((_collector(row, ctx, caller.team_name) for row in page.data), page.links)


@collector_routes.get("/{collector_id}", summary="Get a collector")
async def get_collector(collector_id: str, caller: Caller, ctx: Context, db: ReadDb) -> Response:
    collector = await _find(db, caller, collector_id)
    return single(_collector(collector, ctx, caller.team_name))


@collector_routes.update(
    "/{collector_id}",
    summary="Update a collector",
    body=CollectorUpdate,
    not_null=COLLECTOR_NOT_NULL,
)
async def update_collector(
    collector_id: str, body: JsonObject, write: Writer, ctx: Context
) -> Response:
    collector = await _find.update(write, collector_id, body, _update_from_body)
    return single(_collector(collector, ctx, write.team_name))


@collector_routes.delete("/{collector_id}", summary="Delete a collector and its targets")
async def delete_collector(collector_id: str, write: Writer) -> Response:
    return await _find.delete(write, collector_id, service.delete_collector)


# ---------------------------------------------------------------------- collector targets


# Not on http/children.py's Children: a target's read is one query naming the target when its
# collector is missing too (the factory reads the parent first and would name the collector),
# and its bodies are read by target_requests.py (the console's path as well) with the app's
# SecretBox, which a route's `Within` does not carry.
target_routes = Routes(router, TargetAttributes)


async def _target_of(
    db: AsyncSession, caller: Team, collector_id: str, target_id: str
) -> CollectorTarget:
    """The collector's target the path ids name (404 when either names none)."""
    return await service.get_target(
        db,
        team_id=caller.team_id,
        collector_id=object_id(collector_id, service.COLLECTOR),
        target_id=object_id(target_id, service.TARGET),
    )


@target_routes.create(
    "/{collector_id}/targets",
    summary="Create a collector target",
    description=(
        "Attach a monitoring target to a collector. Which fields a target takes depends on "
        "its `kind`; a field that does not apply to the kind is a 422.\n\n" + rules_markdown()
    ),
    body=TargetCreate,
)
async def create_target(collector_id: str, body: JsonObject, write: Writer) -> Response:
    cid = object_id(collector_id, service.COLLECTOR)
    async with write.session.begin():
        target = await target_requests.create_target_from_body(write, cid, body)
    return single(_target(target), status=201)


@target_routes.list(
    "/{collector_id}/targets", summary="List a collector's targets", errors=CHILD_LIST_ERRORS
)
async def list_targets(collector_id: str, caller: Caller, db: ReadDb, paging: Paging) -> Response:
    cid = object_id(collector_id, service.COLLECTOR)
    await service.check_collector(db, team_id=caller.team_id, collector_id=cid)
    page = await service.list_targets(db, team_id=caller.team_id, collector_id=cid, paging=paging)
    return listing(map(_target, page.data), page.links)


@target_routes.get("/{collector_id}/targets/{target_id}", summary="Get a collector target")
async def get_target(collector_id: str, target_id: str, caller: Caller, db: ReadDb) -> Response:
    return single(_target(await _target_of(db, caller, collector_id, target_id)))


@target_routes.update(
    "/{collector_id}/targets/{target_id}",
    summary="Update a collector target",
    description=(
        "`kind` cannot change. The kind's rules apply to the target as it will be after the "
        "change; changing a connection field sends the target back to `pending`. A stored "
        "`password` or `api_key` must be sent again (or null) when a destination field (host, "
        "port, listen_ip, service, endpoint, scheme) changes."
    ),
    body=TargetUpdate,
    not_null=TARGET_NOT_NULL,
)
async def update_target(
    collector_id: str, target_id: str, body: JsonObject, write: Writer
) -> Response:
    async with write.session.begin():
        target = await _target_of(write.session, write, collector_id, target_id)
        await target_requests.update_target_from_body(write, target, body)
    return single(_target(target))


@target_routes.delete("/{collector_id}/targets/{target_id}", summary="Delete a collector target")
async def delete_target(
    collector_id: str, target_id: str, caller: Caller, db: WriteDb, ctx: Context
) -> Response:
    async with db.begin():
        target = await _target_of(db, caller, collector_id, target_id)
        await service.delete_target(db, target=target, now=ctx.clock.now())
    return no_content()


database_routes = Routes(router, DatabaseAttributes)


@database_routes.list(
    "/{collector_id}/databases",
    summary="List a collector's databases",
    description="Its targets of a database kind (postgres, mysql, redis, mongodb, memcached), "
    "as the hosted API's `databases` shows them.",
    errors=CHILD_LIST_ERRORS,
)
async def list_databases(collector_id: str, caller: Caller, db: ReadDb, paging: Paging) -> Response:
    cid = object_id(collector_id, service.COLLECTOR)
    await service.check_collector(db, team_id=caller.team_id, collector_id=cid)
    page = await databases.of_collector(db, team_id=caller.team_id, collector_id=cid, paging=paging)
    return listing(
        (resource(databases.DATABASE, row.id, databases.attributes(row)) for row in page.data),
        page.links,
    )


sample_routes = Routes(router, MetricSampleAttributes)


@sample_routes.list(
    "/{collector_id}/targets/{target_id}/metrics",
    summary="List a collector target's metric samples",
    description=(
        "The numbers each successful check of the target read (connections, operations, "
        "memory, scrape sample counts …), one sample per check, oldest first, kept for the "
        "last 24 hours."
    ),
    errors=CHILD_LIST_ERRORS,
)
async def list_target_metrics(
    collector_id: str, target_id: str, caller: Caller, db: ReadDb, paging: Paging
) -> Response:
    tid = object_id(target_id, service.TARGET)
    await service.get_target(
        db,
        team_id=caller.team_id,
        collector_id=object_id(collector_id, service.COLLECTOR),
        target_id=tid,
    )
    page = await metrics.list_samples(db, team_id=caller.team_id, target_id=tid, paging=paging)
    return listing(
        (resource(metrics.SAMPLE, row.id, metrics.sample_attributes(row)) for row in page.data),
        page.links,
    )


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (router,)
