"""Routes of /api/v2/outgoing-webhooks."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, Field

from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, single
from watchpost.http.openapi import NoAttributes, PaginationDoc
from watchpost.http.pagination import Paging
from watchpost.listing import Resource, resource
from watchpost.problems import parse
from watchpost.webhooks import service, signing
from watchpost.webhooks.models import OutgoingWebhook
from watchpost.webhooks.schemas import (
    WEBHOOK_NOT_NULL,
    WebhookCreate,
    WebhookResource,
    WebhookTemplateResource,
    WebhookUpdate,
)
from watchpost.webhooks.triggers import rules_markdown

router = APIRouter(prefix="/api/v2/outgoing-webhooks", tags=["outgoing webhooks"])


class WebhookDoc(BaseModel):
    data: WebhookResource
    included: list[WebhookTemplateResource] = Field(
        description="The webhook's template, if it has one."
    )


class WebhookListDoc(BaseModel):
    data: list[WebhookResource]
    included: list[WebhookTemplateResource] = Field(
        description="The templates of this page's webhooks."
    )
    pagination: PaginationDoc


SHAPE = (
    "`relationships.custom_webhook_template.data` is null or `{id, type: "
    '"custom_webhook_template"}`; the top-level `included` holds that template '
    "(`http_method`, `auth_username`, `headers_template`, `body_template`; never "
    "`auth_password`), or is empty; `attributes.custom_webhook_template_attributes` shows "
    "the same template with its `id` (absent without one), where the hosted API's clients "
    "read it. The on_incident_* attributes and `notify_alongside_primary_responder` appear "
    "only on incident_change webhooks."
)


def _webhook(webhook: OutgoingWebhook, team_name: str) -> Resource:
    return resource(
        service.WEBHOOK,
        webhook.id,
        service.webhook_attributes(webhook, team_name),
        service.webhook_relationships(webhook),
    )


def _included(webhooks: Sequence[OutgoingWebhook]) -> list[Resource]:
    return [
        resource(service.TEMPLATE, template.id, service.template_attributes(template))
        for template in service.templates_of(webhooks)
    ]


def _document(
    webhook: OutgoingWebhook,
    team_name: str,
    status: int = 200,
    *,
    signing_secret: str | None = None,
) -> Response:
    """The webhook; `signing_secret` shown only where it was just made (create, rotate)."""
    document = _webhook(webhook, team_name)
    if signing_secret is not None:
        document["attributes"]["signing_secret"] = signing_secret
    return single(document, status=status, included=_included([webhook]))


webhook_routes = Routes(router, one=WebhookDoc, many=WebhookListDoc)


_find = Finder(service.get_webhook, service.WEBHOOK, "webhook_id")


@webhook_routes.create(
    "",
    summary="Create an outgoing webhook",
    description=(
        "`trigger_type` is fixed after creation. Fields that depend on it are a 422 when sent "
        "with a trigger_type that does not accept them.\n\n" + rules_markdown() + "\n\n" + SHAPE
    ),
    body=WebhookCreate,
)
async def create_webhook(body: JsonObject, write: Writer) -> Response:
    secret = signing.new_secret()
    async with write.session.begin():
        webhook = await service.create_from_body(write, body, signing_secret=secret)
    return _document(webhook, write.team_name, status=201, signing_secret=secret)


@webhook_routes.list(
    "",
    summary="List outgoing webhooks",
    description="`included` holds the templates of the webhooks on this page.",
)
async def list_webhooks(caller: Caller, db: ReadDb, paging: Paging) -> Response:
    page = await service.list_webhooks(db, team_id=caller.team_id, paging=paging)
    return listing(
        (_webhook(row, caller.team_name) for row in page.data),
        page.links,
        included=_included(page.data),
    )


@webhook_routes.get("/{outgoing_webhook_id}", summary="Get an outgoing webhook", description=SHAPE)
async def get_webhook(outgoing_webhook_id: str, caller: Caller, db: ReadDb) -> Response:
    webhook = await _find(db, caller, outgoing_webhook_id)
    return _document(webhook, caller.team_name)


@webhook_routes.update(
    "/{outgoing_webhook_id}",
    summary="Update an outgoing webhook",
    description=(
        "`trigger_type` cannot change. `custom_webhook_template_attributes`: null removes the "
        "template; an object creates it, or changes only the sent fields of the existing one. "
        "A stored template `auth_password` must be sent again (or null) when the url's origin "
        "changes."
    ),
    body=WebhookUpdate,
    not_null=WEBHOOK_NOT_NULL,
)
async def update_webhook(outgoing_webhook_id: str, body: JsonObject, write: Writer) -> Response:
    webhook = await _find.update(write, outgoing_webhook_id, body, service.update_from_body)
    return _document(webhook, write.team_name)


@webhook_routes.delete(
    "/{outgoing_webhook_id}", summary="Delete an outgoing webhook and its template"
)
async def delete_webhook(outgoing_webhook_id: str, write: Writer) -> Response:
    return await _find.delete(
        write,
        outgoing_webhook_id,
        lambda write, webhook: service.delete_webhook(write.session, webhook=webhook),
    )


@webhook_routes.action(
    "/{outgoing_webhook_id}/rotate-secret",
    summary="Rotate an outgoing webhook's signing key",
    description=(
        "A new `whsec_…` key signs from now on and is returned once, as `signing_secret`; "
        "for 24 hours requests carry the previous key's signature too (`webhook-signature` "
        "holds both), so receivers can switch keys without missing a request."
    ),
)
async def rotate_secret(
    outgoing_webhook_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    parse(NoAttributes, body)
    secret = signing.new_secret()
    async with db.begin():
        webhook = await _find(db, caller, outgoing_webhook_id)
        await service.rotate_secret(
            db, webhook=webhook, box=ctx.box, now=ctx.clock.now(), signing_secret=secret
        )
    return _document(webhook, caller.team_name, signing_secret=secret)


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (router,)
