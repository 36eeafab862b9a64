"""Routes of /api/v2/heartbeats and /api/v2/heartbeat-groups."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.heartbeats import lists, service
from watchpost.heartbeats.models import Heartbeat, HeartbeatGroup
from watchpost.heartbeats.schemas import (
    DEFAULT_PERIOD,
    GRACE_MAX,
    GROUP_NOT_NULL,
    HEARTBEAT_NOT_NULL,
    HEARTBEAT_NULL_RESETS,
    HEARTBEAT_NULLABLE,
    HEARTBEAT_READ_ONLY,
    PERIOD_MAX,
    PERIOD_MIN,
    GroupAttributes,
    GroupCreate,
    GroupUpdate,
    HeartbeatAttributes,
    HeartbeatCreate,
    HeartbeatUpdate,
    parse_group,
    parse_heartbeat_create,
    parse_heartbeat_update,
)
from watchpost.http.body import JsonObject
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, resource, single
from watchpost.http.errors import error_responses, object_id
from watchpost.http.openapi import ListDoc, SingleDoc, request_body
from watchpost.http.pagination import Paging
from watchpost.teams.service import Principal

heartbeats_router = APIRouter(prefix="/api/v2/heartbeats", tags=["heartbeats"])
groups_router = APIRouter(prefix="/api/v2/heartbeat-groups", tags=["heartbeat groups"])

READ_ERRORS = error_responses(401, 404)
WRITE_ERRORS = error_responses(400, 401, 404, 415, 422)


def _names(fields: frozenset[str]) -> str:
    return ", ".join(f"`{name}`" for name in sorted(fields))


HEARTBEAT_RULES = (
    f"`period` is {PERIOD_MIN} to {PERIOD_MAX} seconds (default {DEFAULT_PERIOD}); `grace` "
    f"is 0 to {GRACE_MAX} seconds and defaults to 20% of the period, rounded down. "
    "`heartbeat_group_id` must name a heartbeat group of the team. "
    f"Read-only attributes ({_names(HEARTBEAT_READ_ONLY)}) are a 422. "
    f"null clears {_names(HEARTBEAT_NULLABLE)}, restores the default of "
    f"{_names(HEARTBEAT_NULL_RESETS)} and is a 422 anywhere else."
)


def _public_base(request: Request, ctx: Context) -> str:
    """The configured public URL, else the URL the request came in on."""
    return ctx.settings.public_base or str(request.base_url).rstrip("/")


def _heartbeat(heartbeat: Heartbeat, caller: Principal, base: str) -> dict[str, object]:
    return lists.heartbeat_resource(heartbeat, public_base=base, team_name=caller.team_name)


def _group(group: HeartbeatGroup, caller: Principal) -> dict[str, object]:
    return resource(
        service.GROUP, group.id, service.group_attributes(group, team_name=caller.team_name)
    )


# --------------------------------------------------------------------------- heartbeats


@heartbeats_router.post(
    "",
    status_code=201,
    summary="Create a heartbeat",
    description="A ping URL that a job calls; it goes down when a ping is overdue.\n\n"
    + HEARTBEAT_RULES,
    responses={201: {"model": SingleDoc[HeartbeatAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(HeartbeatCreate, not_null=HEARTBEAT_NOT_NULL),
)
async def create_heartbeat(
    request: Request, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    async with db.begin():
        group_problems = await service.group_problems(db, team_id=caller.team_id, data=body)
        data = parse_heartbeat_create(body, group_problems=group_problems)
        heartbeat = await service.create_heartbeat(
            db, team_id=caller.team_id, data=data, now=ctx.clock.now()
        )
    return single(_heartbeat(heartbeat, caller, _public_base(request, ctx)), status=201)


@heartbeats_router.get(
    "",
    summary="List heartbeats",
    responses={200: {"model": ListDoc[HeartbeatAttributes]}, **error_responses(401, 422)},
)
async def list_heartbeats(
    request: Request, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
) -> Response:
    page = await lists.list_heartbeats(
        db,
        team_id=caller.team_id,
        team_name=caller.team_name,
        public_base=_public_base(request, ctx),
        paging=paging,
    )
    return listing(page.data, page.links)


@heartbeats_router.get(
    "/{heartbeat_id}",
    summary="Get a heartbeat",
    responses={200: {"model": SingleDoc[HeartbeatAttributes]}, **READ_ERRORS},
)
async def get_heartbeat(
    heartbeat_id: str, request: Request, caller: Caller, ctx: Context, db: ReadDb
) -> Response:
    heartbeat = await service.get_heartbeat(
        db, team_id=caller.team_id, heartbeat_id=object_id(heartbeat_id, service.HEARTBEAT)
    )
    return single(_heartbeat(heartbeat, caller, _public_base(request, ctx)))


@heartbeats_router.patch(
    "/{heartbeat_id}",
    summary="Update a heartbeat",
    description=(
        "Pausing sets `status` to `paused`; unpausing sets it back to `pending` when the "
        "heartbeat was never pinged, else to `up` with a full period + grace from now.\n\n"
        + HEARTBEAT_RULES
    ),
    responses={200: {"model": SingleDoc[HeartbeatAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(HeartbeatUpdate, not_null=HEARTBEAT_NOT_NULL),
)
async def update_heartbeat(
    heartbeat_id: str,
    request: Request,
    body: JsonObject,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    hid = object_id(heartbeat_id, service.HEARTBEAT)
    async with db.begin():
        heartbeat = await service.get_heartbeat(db, team_id=caller.team_id, heartbeat_id=hid)
        group_problems = await service.group_problems(db, team_id=caller.team_id, data=body)
        data = parse_heartbeat_update(
            body, service.heartbeat_values(heartbeat), group_problems=group_problems
        )
        await service.update_heartbeat(
            db,
            heartbeat=heartbeat,
            data=data,
            sent=list(data.model_fields_set),
            now=ctx.clock.now(),
        )
    return single(_heartbeat(heartbeat, caller, _public_base(request, ctx)))


@heartbeats_router.delete(
    "/{heartbeat_id}",
    status_code=204,
    summary="Delete a heartbeat",
    responses=READ_ERRORS,
)
async def delete_heartbeat(
    heartbeat_id: str, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    hid = object_id(heartbeat_id, service.HEARTBEAT)
    async with db.begin():
        heartbeat = await service.get_heartbeat(db, team_id=caller.team_id, heartbeat_id=hid)
        await service.delete_heartbeat(db, heartbeat=heartbeat, now=ctx.clock.now())
    return no_content()


# --------------------------------------------------------------------- heartbeat groups


@groups_router.post(
    "",
    status_code=201,
    summary="Create a heartbeat group",
    responses={201: {"model": SingleDoc[GroupAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(GroupCreate, not_null=GROUP_NOT_NULL),
)
async def create_group(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = parse_group(GroupCreate, body)
    async with db.begin():
        group = await service.create_group(
            db, team_id=caller.team_id, data=data, now=ctx.clock.now()
        )
    return single(_group(group, caller), status=201)


@groups_router.get(
    "",
    summary="List heartbeat groups",
    responses={200: {"model": ListDoc[GroupAttributes]}, **error_responses(401, 422)},
)
async def list_groups(caller: Caller, db: ReadDb, paging: Paging) -> Response:
    page = await lists.list_groups(
        db, team_id=caller.team_id, team_name=caller.team_name, paging=paging
    )
    return listing(page.data, page.links)


@groups_router.get(
    "/{group_id}",
    summary="Get a heartbeat group",
    responses={200: {"model": SingleDoc[GroupAttributes]}, **READ_ERRORS},
)
async def get_group(group_id: str, caller: Caller, db: ReadDb) -> Response:
    group = await service.get_group(
        db, team_id=caller.team_id, group_id=object_id(group_id, service.GROUP)
    )
    return single(_group(group, caller))


@groups_router.get(
    "/{group_id}/heartbeats",
    summary="List a heartbeat group's heartbeats",
    responses={200: {"model": ListDoc[HeartbeatAttributes]}, **error_responses(401, 404, 422)},
)
async def list_group_heartbeats(
    group_id: str, request: Request, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
) -> Response:
    gid = object_id(group_id, service.GROUP)
    await service.get_group(db, team_id=caller.team_id, group_id=gid)
    page = await lists.list_heartbeats(
        db,
        team_id=caller.team_id,
        team_name=caller.team_name,
        public_base=_public_base(request, ctx),
        paging=paging,
        group_id=gid,
    )
    return listing(page.data, page.links)


@groups_router.patch(
    "/{group_id}",
    summary="Update a heartbeat group",
    description="Changing `paused` pauses or resumes every heartbeat in the group.",
    responses={200: {"model": SingleDoc[GroupAttributes]}, **WRITE_ERRORS},
    openapi_extra=request_body(GroupUpdate, not_null=GROUP_NOT_NULL),
)
async def update_group(
    group_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    gid = object_id(group_id, service.GROUP)
    async with db.begin():
        group = await service.get_group(db, team_id=caller.team_id, group_id=gid)
        data = parse_group(GroupUpdate, body)
        await service.update_group(
            db, group=group, data=data, sent=list(data.model_fields_set), now=ctx.clock.now()
        )
    return single(_group(group, caller))


@groups_router.delete(
    "/{group_id}",
    status_code=204,
    summary="Delete a heartbeat group",
    description="Its heartbeats are kept, ungrouped (`heartbeat_group_id` becomes null).",
    responses=READ_ERRORS,
)
async def delete_group(group_id: str, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    gid = object_id(group_id, service.GROUP)
    async with db.begin():
        group = await service.get_group(db, team_id=caller.team_id, group_id=gid)
        await service.delete_group(db, group=group, now=ctx.clock.now())
    return no_content()


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (heartbeats_router, groups_router)
