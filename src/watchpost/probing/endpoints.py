"""Routes of /api/v2/locations and their probe tokens, for a team's API tokens.

A team sees the operator's locations and its own; it creates, changes and deletes only its
own (always private: a shared location's agents receive every team's monitors, so only the
operator makes those, with `watchpost location create`), and manages only their tokens.
Another team's location is a 404; an operator's location a 403 for writes.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.errors import ApiError
from watchpost.http.body import JsonObject
from watchpost.http.crud import CHILD_LIST_ERRORS, Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, single
from watchpost.http.errors import READ_ERRORS, WRITE_ERRORS, error_responses
from watchpost.http.openapi import MessageErrorBody, SingleDoc, request_body
from watchpost.http.pagination import Paging
from watchpost.listing import Resource, paginate, resource
from watchpost.locations import tokens
from watchpost.locations.models import Location, ProbeToken
from watchpost.probing import service
from watchpost.probing.schemas import (
    LOCATION_NOT_NULL,
    LocationAttributes,
    LocationCreate,
    LocationUpdate,
    ProbeTokenAttributes,
    ProbeTokenCreate,
    location_attributes,
    parse_create,
    parse_update,
    token_attributes,
)
from watchpost.problems import parse
from watchpost.validation import object_id

router = APIRouter(prefix="/api/v2/locations", tags=["locations"])
locations = Routes(router, LocationAttributes)
probe_tokens = Routes(router, ProbeTokenAttributes)

FORBIDDEN: Final[dict[int | str, dict[str, Any]]] = {
    403: {"model": MessageErrorBody, "description": "An operator's location: read only"},
}
OWN_ONLY: Final = "Only the team's own (private) locations; an operator's location is a 403."


def _location(location: Location) -> Resource:
    return resource(service.LOCATION, location.id, location_attributes(location))


def _token(token: ProbeToken, raw: str | None = None) -> Resource:
    attributes = token_attributes(token)
    if raw is not None:
        attributes["token"] = raw
    return resource(tokens.PROBE_TOKEN, token.id, attributes)


_find = Finder(service.get_for_team, service.LOCATION, "location_id")


async def _own(db: AsyncSession, caller: Caller, raw_id: str) -> Location:
    """The team's own location; the operator's (which it sees) are not its to change."""
    location = await _find(db, caller, raw_id)
    if location.team_id != caller.team_id:
        raise ApiError(
            403,
            f"Location {location.name} is the server operator's: it is managed with the "
            "`watchpost location` commands",
        )
    return location


@locations.list(
    "",
    summary="List locations",
    description="The operator's locations and the team's own, by name.",
)
async def list_locations(caller: Caller, db: ReadDb, paging: Paging) -> Response:
    stmt = service.visible(caller.team_id)
    page = await paginate(db, stmt, paging, order_by=Location.name)
    return listing((_location(row) for row in page.data), page.links)


@locations.create(
    "",
    summary="Create a private location of the team",
    description="The location is private and the team's: only its monitors that name it are "
    "checked there, by agents signing in with its probe tokens.",
    body=LocationCreate,
)
async def create_location(body: JsonObject, write: Writer) -> Response:
    data = parse_create(body)
    async with write.session.begin():
        location = await service.create_team_location(write, data)
    return single(_location(location), status=201)


@locations.get("/{location_id}", summary="Get a location")
async def get_location(location_id: str, caller: Caller, db: ReadDb) -> Response:
    return single(_location(await _find(db, caller, location_id)))


@router.patch(
    "/{location_id}",
    summary="Update a location of the team",
    description=OWN_ONLY + " Renaming renames it in the team's monitors' `locations`.",
    responses={200: {"model": SingleDoc[LocationAttributes]}, **WRITE_ERRORS, **FORBIDDEN},
    openapi_extra=request_body(LocationUpdate, not_null=LOCATION_NOT_NULL),
)
async def update_location(
    location_id: str, body: JsonObject, caller: Caller, write: Writer
) -> Response:
    data = parse_update(body)
    async with write.session.begin():
        location = await _own(write.session, caller, location_id)
        await service.update_from(write, location, data)
    return single(_location(location))


@locations.delete(
    "/{location_id}",
    summary="Delete a location of the team",
    description=OWN_ONLY + " Refused (409) while monitors name it.",
    errors={**READ_ERRORS, **FORBIDDEN, **error_responses(409)},
)
async def delete_location(location_id: str, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    async with db.begin():
        location = await _own(db, caller, location_id)
        await service.delete_location(db, location, now=ctx.clock.now())
    return no_content()


@probe_tokens.list(
    "/{location_id}/probe-tokens",
    summary="List a location's probe tokens",
    description=OWN_ONLY + " The tokens themselves are never shown again.",
    errors={**CHILD_LIST_ERRORS, **FORBIDDEN},
)
async def list_tokens(location_id: str, caller: Caller, db: ReadDb, paging: Paging) -> Response:
    location = await _own(db, caller, location_id)
    stmt = select(ProbeToken).where(ProbeToken.location_id == location.id)
    page = await paginate(db, stmt, paging, order_by=ProbeToken.id)
    return listing((_token(row) for row in page.data), page.links)


@probe_tokens.create(
    "/{location_id}/probe-tokens",
    summary="Create a probe token of a location",
    description=OWN_ONLY + " The answer holds the token (`token`), the only time it is shown; "
    "`watchpost probe` signs in with it.",
    body=ProbeTokenCreate,
    errors={**WRITE_ERRORS, **FORBIDDEN},
)
async def create_token(
    location_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    data = parse(ProbeTokenCreate, body)
    async with db.begin():
        location = await _own(db, caller, location_id)
        row, raw = await tokens.create_token_row(
            db, location=location, name=data.name, now=ctx.clock.now()
        )
    return single(_token(row, raw), status=201)


@probe_tokens.delete(
    "/{location_id}/probe-tokens/{token_id}",
    summary="Revoke a probe token",
    description=OWN_ONLY + " The token stays listed, with its `revoked_at`.",
    errors={**READ_ERRORS, **FORBIDDEN},
)
async def revoke_token(
    location_id: str, token_id: str, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    async with db.begin():
        location = await _own(db, caller, location_id)
        token = await tokens.get_token(
            db, location_id=location.id, token_id=object_id(token_id, tokens.PROBE_TOKEN)
        )
        await tokens.revoke_token(db, token, now=ctx.clock.now())
    return no_content()


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (router,)
