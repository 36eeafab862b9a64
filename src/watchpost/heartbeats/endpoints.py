"""Routes of /api/v2/heartbeats (a heartbeat group's heartbeats are listed by groups/)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from watchpost.context import AppContext
from watchpost.heartbeats import lists, service
from watchpost.heartbeats.models import Heartbeat
from watchpost.heartbeats.schemas import (
    DEFAULT_PERIOD,
    GRACE_MAX,
    HEARTBEAT_NOT_NULL,
    HEARTBEAT_NULL_RESETS,
    HEARTBEAT_NULLABLE,
    HEARTBEAT_READ_ONLY,
    PERIOD_MAX,
    PERIOD_MIN,
    HeartbeatAttributes,
    HeartbeatCreate,
    HeartbeatUpdate,
)
from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes, Writer, listed_team
from watchpost.http.deps import Caller, Context, ReadDb
from watchpost.http.envelope import listing, single
from watchpost.http.pagination import Paging
from watchpost.teams.service import Principal
from watchpost.validation import FilterText

heartbeats_router = APIRouter(prefix="/api/v2/heartbeats", tags=["heartbeats"])


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


def public_base(request: Request, ctx: AppContext) -> str:
    """The configured public URL, else the URL the request came in on."""
    return ctx.settings.public_base or str(request.base_url).rstrip("/")


async def _request_base(request: Request, ctx: Context) -> str:
    return public_base(request, ctx)


PublicBase = Annotated[str, Depends(_request_base)]
"""The public URL heartbeats' ping URLs start with (`public_base`)."""


def _heartbeat(heartbeat: Heartbeat, caller: Principal, base: str) -> dict[str, object]:
    return lists.heartbeat_resource(heartbeat, public_base=base, team_name=caller.team_name)


# --------------------------------------------------------------------------- heartbeats


heartbeat_routes = Routes(heartbeats_router, HeartbeatAttributes)


_find = Finder(service.get_heartbeat, service.HEARTBEAT, "heartbeat_id")


@heartbeat_routes.create(
    "",
    summary="Create a heartbeat",
    description="A ping URL that a job calls; it goes down when a ping is overdue.\n\n"
    + HEARTBEAT_RULES,
    body=HeartbeatCreate,
    not_null=HEARTBEAT_NOT_NULL,
)
async def create_heartbeat(
    body: JsonObject, caller: Caller, write: Writer, base: PublicBase
) -> Response:
    async with write.session.begin():
        heartbeat = await service.create_from_body(write, body)
    return single(_heartbeat(heartbeat, caller, base), status=201)


@heartbeat_routes.list("", summary="List heartbeats")
async def list_heartbeats(
    caller: Caller,
    db: ReadDb,
    paging: Paging,
    base: PublicBase,
    team_name: Annotated[
        FilterText | None,
        Query(description="Only this team's: the token's team lists all, another none."),
    ] = None,
) -> Response:
    page = await lists.list_heartbeats(
        db,
        team_id=listed_team(caller, team_name),
        team_name=caller.team_name,
        public_base=base,
        paging=paging,
    )
    return listing(page.data, page.links)


@heartbeat_routes.get("/{heartbeat_id}", summary="Get a heartbeat")
async def get_heartbeat(
    heartbeat_id: str, caller: Caller, db: ReadDb, base: PublicBase
) -> Response:
    heartbeat = await _find(db, caller, heartbeat_id)
    return single(_heartbeat(heartbeat, caller, base))


@heartbeat_routes.update(
    "/{heartbeat_id}",
    summary="Update a heartbeat",
    description=(
        "Pausing sets `status` to `paused`; unpausing sets it back to `pending` when the "
        "heartbeat was never pinged, else to `up` with a full period + grace from now.\n\n"
        + HEARTBEAT_RULES
    ),
    body=HeartbeatUpdate,
    not_null=HEARTBEAT_NOT_NULL,
)
async def update_heartbeat(
    heartbeat_id: str, body: JsonObject, caller: Caller, write: Writer, base: PublicBase
) -> Response:
    heartbeat = await _find.update(write, heartbeat_id, body, service.update_from_body)
    return single(_heartbeat(heartbeat, caller, base))


@heartbeat_routes.delete("/{heartbeat_id}", summary="Delete a heartbeat")
async def delete_heartbeat(heartbeat_id: str, write: Writer) -> Response:
    return await _find.delete(write, heartbeat_id, service.delete_heartbeat)


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (heartbeats_router,)
