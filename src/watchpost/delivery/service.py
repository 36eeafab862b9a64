"""What the API does with deliveries: list a webhook's, replay one, send a test. No HTTP here."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.clock import isoformat_ms
from watchpost.crypto import SecretBox
from watchpost.delivery import attempt_log, chat, claims, results, sending
from watchpost.delivery.models import Delivery, DeliveryAttempt, DeliveryEvent
from watchpost.delivery.results import Attempt
from watchpost.delivery.sending import Outcome
from watchpost.errors import Conflict, NotFound
from watchpost.listing import Page, PageRequest, Resource, paginate, resource
from watchpost.settings import Settings
from watchpost.webhooks.models import OutgoingWebhook
from watchpost.writing import Writing

DELIVERY: Final = "outgoing_webhook_delivery"


def delivery_attributes(delivery: Delivery, event: DeliveryEvent) -> dict[str, Any]:
    def moment(value: datetime | None) -> str | None:
        return isoformat_ms(value) if value is not None else None

    return {
        "channel": delivery.channel,
        "outgoing_webhook_id": delivery.webhook_id,
        "notification_channel_id": delivery.channel_id,
        "pagerduty_integration_id": delivery.pagerduty_id,
        "recipient": delivery.recipient,
        "event_id": event.id,
        "webhook_message_id": f"msg_{event.id}",
        "trigger_type": event.trigger_type,
        "event": event.event,
        "subject_type": event.subject_type,
        "subject_id": event.subject_id,
        "state": delivery.state,
        "attempts": delivery.attempts,
        "status_code": delivery.status_code,
        "duration_ms": delivery.duration_ms,
        "response_excerpt": delivery.response_excerpt,
        "error": delivery.error,
        "created_at": moment(delivery.created_at),
        "last_attempt_at": moment(delivery.last_attempt_at),
        "next_attempt_at": moment(delivery.next_attempt_at),
        "delivered_at": moment(delivery.delivered_at),
    }


def delivery_resource(delivery: Delivery, event: DeliveryEvent) -> dict[str, Any]:
    return resource(DELIVERY, delivery.id, delivery_attributes(delivery, event))


def attempt_attributes(attempt: DeliveryAttempt) -> dict[str, Any]:
    return {
        "attempt": attempt.number,
        "attempted_at": isoformat_ms(attempt.attempted_at),
        "status_code": attempt.status_code,
        "duration_ms": attempt.duration_ms,
        "response_excerpt": attempt.response_excerpt,
        "error": attempt.error,
        "next_attempt_at": isoformat_ms(attempt.next_attempt_at)
        if attempt.next_attempt_at is not None
        else None,
    }


async def with_attempts(
    session: AsyncSession, rows: Sequence[tuple[Delivery, DeliveryEvent]]
) -> list[Resource]:
    """A webhook's deliveries as resources with their `attempt_log`: the attempts of them
    all read in one statement."""
    logged = await attempt_log.attempts_of(session, [delivery.id for delivery, _ in rows])
    return [
        resource(
            DELIVERY,
            delivery.id,
            {
                **delivery_attributes(delivery, event),
                "attempt_log": [attempt_attributes(a) for a in logged[delivery.id]],
            },
        )
        for delivery, event in rows
    ]


def _deliveries(webhook: OutgoingWebhook) -> Any:
    return (
        select(Delivery, DeliveryEvent)
        .join(DeliveryEvent, DeliveryEvent.id == Delivery.event_id)
        .where(Delivery.webhook_id == webhook.id)
    )


async def list_deliveries(
    session: AsyncSession, *, webhook: OutgoingWebhook, paging: PageRequest
) -> Page[tuple[Delivery, DeliveryEvent]]:
    """A page of the webhook's deliveries, newest first, each with its event."""
    stmt = select(Delivery).where(Delivery.webhook_id == webhook.id)
    return await _page(session, stmt, paging, order_by=Delivery.id.desc())


async def list_told(
    session: AsyncSession, *, subject_type: str, subject_id: int, team_id: int, paging: PageRequest
) -> Page[tuple[Delivery, DeliveryEvent]]:
    """A page of the deliveries of one object's events (whom an incident was told to), in
    the order they were made."""
    events = select(DeliveryEvent.id).where(
        DeliveryEvent.team_id == team_id,
        DeliveryEvent.subject_type == subject_type,
        DeliveryEvent.subject_id == subject_id,
    )
    stmt = select(Delivery).where(Delivery.event_id.in_(events.scalar_subquery()))
    return await _page(session, stmt, paging, order_by=Delivery.id)


async def _page(
    session: AsyncSession, stmt: Any, paging: PageRequest, *, order_by: Any
) -> Page[tuple[Delivery, DeliveryEvent]]:
    page = await paginate(session, stmt, paging, order_by=order_by)
    events = {
        event.id: event
        for event in await session.scalars(
            select(DeliveryEvent).where(
                DeliveryEvent.id.in_({delivery.event_id for delivery in page.data})
            )
        )
    }
    return page.map(lambda rows: [(delivery, events[delivery.event_id]) for delivery in rows])


async def get_delivery(
    session: AsyncSession, *, webhook: OutgoingWebhook, delivery_id: int
) -> tuple[Delivery, DeliveryEvent]:
    row = (await session.execute(_deliveries(webhook).where(Delivery.id == delivery_id))).first()
    if row is None:
        raise NotFound(DELIVERY, delivery_id)
    return row[0], row[1]


async def retry(session: AsyncSession, *, delivery: Delivery, now: datetime) -> Delivery:
    """Attempt the delivery again now, whatever its state; 409 while an attempt is under
    way. A delivery that had used its retries gets this one attempt."""
    if (
        delivery.state == "pending"
        and delivery.lease_expires_at is not None
        and delivery.lease_expires_at > now
    ):
        raise Conflict(f"Delivery {delivery.id} is being sent right now")
    delivery.state = "pending"
    delivery.next_attempt_at = now
    delivery.lease_owner = delivery.lease_expires_at = None
    delivery.updated_at = now
    await session.flush()
    return delivery


def _sample(trigger_type: str, team_name: str, now: datetime) -> dict[str, Any]:
    """A made-up event of the webhook's kind (id 0), shaped as the real ones."""
    at = isoformat_ms(now)
    if trigger_type == "monitor_change":
        attributes: dict[str, Any] = {
            "url": "https://example.com",
            "pronounceable_name": "Test monitor (sent by Watchpost to test this webhook)",
            "monitor_type": "status",
            "status": "up",
            "team_name": team_name,
            "created_at": at,
            "updated_at": at,
        }
        return {
            "event": "updated",
            "data": {"id": "0", "type": "monitor", "attributes": attributes},
        }
    if trigger_type == "on_call_change":
        attributes = {
            "name": "Test on-call calendar",
            "default_calendar": False,
            "team_name": team_name,
        }
        calendar = {"id": "0", "type": "on_call_calendar", "attributes": attributes}
        calendar["relationships"] = {"on_call_users": {"data": []}}
        return {"event": "changed", "data": calendar, "included": []}
    attributes = {
        "name": "Test incident",
        "cause": "Sent by Watchpost to test this webhook",
        "status": "started",
        "started_at": at,
        "acknowledged_at": None,
        "acknowledged_by": None,
        "resolved_at": None,
        "resolved_by": None,
        "team_name": team_name,
        "created_at": at,
        "updated_at": at,
    }
    data = {"id": "0", "type": "incident", "attributes": attributes, "relationships": {}}
    return {"event": "started", "data": data}


async def send_test(
    write: Writing, webhook: OutgoingWebhook, settings: Settings
) -> tuple[Delivery, DeliveryEvent]:
    """Send a sample event (of the writing's team) to the webhook now, once (no retries), and
    keep it in its log; in transactions of its own, around the sending."""
    session, now = write.session, write.now
    payload = _sample(webhook.trigger_type, write.team_name, now)
    owner = "test:" + secrets.token_hex(4)
    async with session.begin():
        event = DeliveryEvent(
            team_id=webhook.team_id,
            trigger_type=webhook.trigger_type,
            event=payload["event"],
            subject_type=payload["data"]["type"],
            subject_id=0,
            payload=payload,
            created_at=now,
            dispatched_at=now,  # not for the other webhooks of the team
        )
        session.add(event)
        await session.flush()
        delivery = Delivery(
            team_id=webhook.team_id,
            event_id=event.id,
            webhook_id=webhook.id,
            state="pending",
            attempts=0,
            lease_owner=owner,
            lease_expires_at=now + timedelta(seconds=settings.delivery_timeout + 15),
            created_at=now,
            updated_at=now,
        )
        session.add(delivery)
        await session.flush()
        job = claims.jobs_from(
            await session.execute(claims.job_query().where(Delivery.id == delivery.id))
        )[0]
    outcome = await sending.send(job, box=write.box, now=now, timeout=settings.delivery_timeout)
    attempt = Attempt(
        job=job, outcome=dataclasses.replace(outcome, final=True), at=now, owner=owner
    )
    async with session.begin():
        await results.record(session, [attempt], settings=settings)
        await session.refresh(delivery)
    return delivery, event


async def test_channel(
    *, channel: NotificationChannel, team_name: str, box: SecretBox, now: datetime
) -> Outcome:
    """Send a made-up incident start to the channel now, once."""
    return await chat.send(
        channel.url_encrypted,
        _sample("incident_change", team_name, now),
        box=box,
        acknowledge_url=None,
    )
