"""Routes of a webhook's deliveries: /api/v2/outgoing-webhooks/{id}/deliveries and /test."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels import service as channels
from watchpost.delivery import service
from watchpost.delivery.models import Delivery, DeliveryEvent
from watchpost.delivery.schemas import ChannelTestAttributes, WebhookDeliveryAttributes
from watchpost.http.body import JsonObject
from watchpost.http.collection import ObjectId
from watchpost.http.crud import CHILD_LIST_ERRORS, Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, single
from watchpost.http.errors import WRITE_ERRORS, error_responses
from watchpost.http.openapi import NoAttributes
from watchpost.http.pagination import Paging
from watchpost.listing import resource
from watchpost.problems import parse
from watchpost.teams.service import Principal
from watchpost.validation import object_id
from watchpost.webhooks import service as webhooks

router = APIRouter(prefix="/api/v2/outgoing-webhooks", tags=["outgoing webhooks"])
delivery_routes = Routes(router, WebhookDeliveryAttributes)

SHAPE = (
    "A delivery is one event sent to this webhook: `state` is pending (an attempt is due at "
    "`next_attempt_at`), succeeded, failed (given up after the last retry, or 410 Gone) or "
    "cancelled (the webhook was disabled). `status_code`, `duration_ms`, `response_excerpt` "
    "(the first KB) and `error` are those of the last attempt; `attempt_log` (Watchpost's "
    "own) lists every attempt, newest first: the newest 50 of a delivery are kept."
)


_webhook = Finder(webhooks.get_webhook, webhooks.WEBHOOK, "webhook_id")


async def _found(
    db: AsyncSession, caller: Principal, webhook_id: str, delivery_id: str
) -> tuple[Delivery, DeliveryEvent]:
    """The delivery the path names, of the caller's webhook the path names (else 404)."""
    did = object_id(delivery_id, service.DELIVERY)
    webhook = await _webhook(db, caller, webhook_id)
    return await service.get_delivery(db, webhook=webhook, delivery_id=did)


async def _shown(db: AsyncSession, delivery: Delivery, event: DeliveryEvent) -> Response:
    [shown] = await service.with_attempts(db, [(delivery, event)])
    return single(shown)


@delivery_routes.list(
    "/{outgoing_webhook_id}/deliveries",
    summary="List an outgoing webhook's deliveries",
    description=SHAPE + " Newest first.",
    errors=CHILD_LIST_ERRORS,
)
async def list_deliveries(
    outgoing_webhook_id: str, caller: Caller, db: ReadDb, paging: Paging
) -> Response:
    webhook = await _webhook(db, caller, outgoing_webhook_id)
    page = await service.list_deliveries(db, webhook=webhook, paging=paging)
    return listing(await service.with_attempts(db, page.data), page.links)


@delivery_routes.get(
    "/{outgoing_webhook_id}/deliveries/{delivery_id}",
    summary="Get one delivery of an outgoing webhook",
    description=SHAPE,
)
async def get_delivery(
    outgoing_webhook_id: str, delivery_id: str, caller: Caller, db: ReadDb
) -> Response:
    delivery, event = await _found(db, caller, outgoing_webhook_id, delivery_id)
    return await _shown(db, delivery, event)


@delivery_routes.action(
    "/{outgoing_webhook_id}/deliveries/{delivery_id}/retry",
    summary="Send a delivery again",
    description=(
        "Makes the delivery due now, whatever its state (a replay of a delivered event "
        "carries the same `webhook-id`). 409 while an attempt is under way. " + SHAPE
    ),
    errors={**WRITE_ERRORS, **error_responses(409)},
)
async def retry_delivery(
    outgoing_webhook_id: str,
    delivery_id: str,
    body: JsonObject,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    parse(NoAttributes, body)
    async with db.begin():
        delivery, event = await _found(db, caller, outgoing_webhook_id, delivery_id)
        await service.retry(db, delivery=delivery, now=ctx.clock.now())
        return await _shown(db, delivery, event)


@delivery_routes.action(
    "/{outgoing_webhook_id}/test",
    summary="Send a test event to an outgoing webhook now",
    description=(
        "Sends a made-up event of the webhook's trigger_type (id 0) at once, signed and "
        "built as real ones, and answers with the outcome: one attempt, no retries, kept in "
        "the webhook's deliveries. " + SHAPE
    ),
)
async def test_webhook(
    outgoing_webhook_id: str, body: JsonObject, write: Writer, ctx: Context
) -> Response:
    parse(NoAttributes, body)
    async with write.session.begin():
        webhook = await _webhook(write.session, write, outgoing_webhook_id)
    delivery, event = await service.send_test(write, webhook, ctx.settings)
    async with write.session.begin():
        return await _shown(write.session, delivery, event)


channel_router = APIRouter(prefix="/api/v2/notification-channels", tags=["notification channels"])
_channel = Finder(channels.get, channels.TYPE, "object_id")


@Routes(channel_router, ChannelTestAttributes).action(
    "/{id}/test",
    summary="Send a test message to a notification channel now",
    description="Sends a made-up incident start at once and answers whether the service "
    "took it (one attempt).",
)
async def test_channel(
    channel_id: ObjectId, body: JsonObject, caller: Caller, ctx: Context, db: ReadDb
) -> Response:
    parse(NoAttributes, body)
    channel = await _channel(db, caller, channel_id)
    outcome = await service.test_channel(
        channel=channel, team_name=caller.team_name, box=ctx.box, now=ctx.clock.now()
    )
    attributes = {"sent": outcome.ok, "duration_ms": outcome.duration_ms, "error": outcome.error}
    return single(resource("notification_channel_test", channel.id, attributes))


routers = (router, channel_router)
