"""Routes of /api/v2/incoming-webhooks (the public URL they receive on: receive_endpoints.py)
and of /api/v2/email-integrations (a plain collection)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.context import AppContext
from watchpost.http.body import JsonObject
from watchpost.http.collection import Collection, ObjectId
from watchpost.http.crud import Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, single
from watchpost.http.pagination import Paging
from watchpost.incoming import email_schemas, email_service, schemas, service
from watchpost.incoming.models import IncomingWebhook
from watchpost.listing import Resource
from watchpost.problems import accepted, checked

router = APIRouter(prefix=schemas.PREFIX, tags=[schemas.PLURAL])
routes = Routes(router, schemas.WebhookAttributes)
find = Finder(service.get, schemas.TYPE, "object_id")


def public_base(request: Request, ctx: AppContext) -> str:
    """Where the server is reached: the configured public URL, else the request's."""
    return ctx.settings.public_base or str(request.base_url).rstrip("/")


def _render(row: IncomingWebhook, request: Request, ctx: AppContext, team_name: str) -> Resource:
    return service.render(row, team_name, public_base(request, ctx))


@routes.create(
    "", summary="Create an incoming webhook", description=schemas.ABOUT, body=schemas.WebhookCreate
)
async def create(
    body: JsonObject, request: Request, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    data = accepted(*checked(schemas.WebhookCreate, body))
    async with db.begin():
        made = await service.make(db, caller, ctx.clock.now(), data)
    return single(_render(made, request, ctx, caller.team_name), status=201)


@routes.list("", summary="List incoming webhooks")
async def list_all(
    request: Request, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
) -> Response:
    page = await service.page(db, caller, paging)
    base = public_base(request, ctx)
    return listing((service.render(row, caller.team_name, base) for row in page.data), page.links)


@routes.get("/{id}", summary="Get an incoming webhook")
async def get(
    object_id: ObjectId, request: Request, caller: Caller, ctx: Context, db: ReadDb
) -> Response:
    return single(_render(await find(db, caller, object_id), request, ctx, caller.team_name))


@routes.update(
    "/{id}",
    summary="Update an incoming webhook",
    description="Sent attributes change; a null rule or field list empties it, a null field "
    "removes it. `url` (its token) never changes.",
    body=schemas.WebhookUpdate,
    not_null=schemas.NOT_NULL_FIELDS,
)
async def update(
    object_id: ObjectId,
    body: JsonObject,
    request: Request,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    async with db.begin():
        found = await find(db, caller, object_id)
        data = accepted(*checked(schemas.WebhookUpdate, body, not_null=schemas.NOT_NULL_FIELDS))
        await service.change(db, caller, found, ctx.clock.now(), data)
    return single(_render(found, request, ctx, caller.team_name))


@routes.delete(
    "/{id}",
    summary="Delete an incoming webhook",
    description="Its open incident is resolved; its incidents stay, as history.",
)
async def delete(object_id: ObjectId, write: Writer) -> Response:
    return await find.delete(
        write, object_id, lambda write, found: service.remove(write.session, found, write.now)
    )


routers = (router, *Collection.of(email_service, email_schemas).routers())
