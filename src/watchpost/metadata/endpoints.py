"""Routes of /api/v3/metadata: keys with typed values on monitors, heartbeats and incidents.

As the hosted API does, POST sets one key of one owner: it creates the record, replaces (or,
with `mode: merge`, adds to) the values of the one kept, or, with no values, removes it
(204). GET lists them (filtered by `owner_type` and `owner_id`); one record is read, changed
(PATCH) and deleted by its id.
"""

from __future__ import annotations

from fastapi import APIRouter, Query
from fastapi.responses import Response
from sqlalchemy.exc import IntegrityError

from watchpost.errors import InvalidRequest
from watchpost.http.body import JsonObject
from watchpost.http.collection import ObjectId
from watchpost.http.crud import Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, single
from watchpost.http.errors import WRITE_ERRORS
from watchpost.http.pagination import Paging
from watchpost.metadata import service
from watchpost.metadata.schemas import (
    CREATE_NOT_NULL,
    NOT_NULL,
    MetadataAttributes,
    MetadataUpdate,
    MetadataWrite,
)
from watchpost.problems import accepted, checked, team_name_problems
from watchpost.validation import INT64_MAX, documented_as, parse_id

PREFIX = "/api/v3/metadata"
router = APIRouter(prefix=PREFIX, tags=["metadata"])
routes = Routes(router, MetadataAttributes)
find = Finder(service.get, service.TYPE, "object_id")

ABOUT = (
    "Sets one key of one owner (`owner_type` `Monitor`, `Heartbeat`, `Incident`, "
    "`WebhookIntegration` (an outgoing webhook), `EmailIntegration` or `IncomingWebhook`, "
    "`owner_id` an object of the team): creates the record (201), replaces its values or, "
    "with `mode: merge`, adds to them; `values` empty or null removes the key (204). Values "
    "are `String` (`value`) or reference an item of the team (`User`, `Team`, `Policy`, "
    "`Schedule`, `PagerDutyWebhook`) by `item_id`, `email` or `name`; all values of a key "
    "share one type. An incident's records are its `metadata`; a monitor's, heartbeat's or "
    "incoming webhook's are copied onto the incidents it opens."
)


@routes.create(
    "",
    summary="Set a metadata key",
    description=ABOUT,
    body=MetadataWrite,
    not_null=CREATE_NOT_NULL,
    errors={**WRITE_ERRORS, 204: {"description": "The key was removed (no values sent)."}},
)
async def put(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = accepted(*checked(MetadataWrite, body, not_null=CREATE_NOT_NULL))
    for attempt in range(2):
        try:
            async with db.begin():
                record = await service.put(db, caller, data, ctx.clock.now())
                if record is None:
                    return no_content()
                return single(service.render(record, caller.team_name), status=201)
        except IntegrityError:
            # Another request created the same key meanwhile: the second try updates it.
            if attempt:
                raise
    raise AssertionError("unreachable")


@routes.list("", summary="List metadata")
async def list_metadata(
    caller: Caller,
    db: ReadDb,
    paging: Paging,
    owner_type: str | None = Query(default=None, description="Only this owner type's."),
    owner_id: str | None = Query(
        default=None,
        description="Only this owner's.",
        json_schema_extra=documented_as({"type": "integer", "minimum": 1, "maximum": INT64_MAX}),
    ),
    team_name: str | None = Query(default=None, description="Must name the token's team."),
) -> Response:
    problems = team_name_problems(team_name, caller.team_name)
    if owner_type is not None:
        problems += service.owner_type_problems("owner_type", owner_type)
    owner = None
    if owner_id is not None:
        owner = parse_id(owner_id.strip())
        if owner is None:
            problems.append(("owner_id", "owner_id must be an id"))
    if problems:
        raise InvalidRequest(problems)
    page = await service.page(db, caller, paging, owner_type=owner_type, owner_id=owner)
    return listing((service.render(row, caller.team_name) for row in page.data), page.links)


@routes.get("/{id}", summary="Get a metadata record")
async def get(object_id: ObjectId, caller: Caller, db: ReadDb) -> Response:
    return single(service.render(await find(db, caller, object_id), caller.team_name))


@routes.update("/{id}", summary="Update a metadata record", body=MetadataUpdate, not_null=NOT_NULL)
async def update(
    object_id: ObjectId, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    async with db.begin():
        found = await find(db, caller, object_id)
        data = accepted(*checked(MetadataUpdate, body, not_null=NOT_NULL))
        await service.change(db, caller, found, data, ctx.clock.now())
    return single(service.render(found, caller.team_name))


@routes.delete("/{id}", summary="Delete a metadata record")
async def delete(object_id: ObjectId, write: Writer) -> Response:
    return await find.delete(
        write, object_id, lambda write, found: service.remove(write.session, found)
    )


routers = (router,)
