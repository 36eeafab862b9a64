"""From events to deliveries: one per webhook of the event's team that wants it, one per
member of the team for an event to be e-mailed, one to the SMS and to the call service for an
event whose incident says so, one per notification channel of the team for an incident's
start and resolution.

Dispatching runs in the delivery workers, not in the transaction of the change: the change
only writes its event (outbox.py). Events are claimed with `FOR UPDATE SKIP LOCKED` on
PostgreSQL (the write session's `BEGIN IMMEDIATE` on SQLite) and marked dispatched in the
transaction that adds their deliveries, so each event is dispatched once, by one worker.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.delivery import escalation
from watchpost.delivery.models import Delivery, DeliveryEvent
from watchpost.teams.models import User
from watchpost.webhooks.models import OutgoingWebhook

_HOOK_FLAGS: Final = (
    OutgoingWebhook.on_incident_started,
    OutgoingWebhook.on_incident_acknowledged,
    OutgoingWebhook.on_incident_resolved,
    OutgoingWebhook.on_incident_reopened,
    OutgoingWebhook.on_incident_comment,
)


def wants(webhook: Any, trigger_type: str, event: str) -> bool:
    """Whether a webhook (a row with trigger_type and the on_incident_* flags) wants the event."""
    if webhook.trigger_type != trigger_type:
        return False
    if trigger_type == "incident_change":
        return bool(getattr(webhook, f"on_incident_{event}", False))
    return True


CHAT_EVENTS: Final[dict[str, tuple[str, ...]]] = {"incident_change": ("started", "resolved")}
"""What every notification channel of the team is told (until escalation policies say whom)."""


async def _channels(session: AsyncSession, team_ids: set[int]) -> dict[int, list[int]]:
    """The notification channels of the teams."""
    found: dict[int, list[int]] = defaultdict(list)
    if team_ids:
        rows = await session.execute(
            select(NotificationChannel.team_id, NotificationChannel.id)
            .where(NotificationChannel.team_id.in_(team_ids))
            .order_by(NotificationChannel.id)
        )
        for team_id, channel_id in rows:
            found[team_id].append(channel_id)
    return found


async def _members(session: AsyncSession, team_ids: set[int]) -> dict[int, list[str]]:
    """The e-mail addresses of the teams' members."""
    found: dict[int, list[str]] = defaultdict(list)
    if team_ids:
        rows = await session.execute(
            select(User.team_id, User.email).where(User.team_id.in_(team_ids)).order_by(User.id)
        )
        for team_id, email in rows:
            found[team_id].append(email)
    return found


async def dispatch(session: AsyncSession, *, now: datetime, limit: int, first_delay: float) -> int:
    """Dispatch up to `limit` undispatched events, oldest first; how many deliveries were
    made. Call inside a write transaction."""
    events = (
        await session.execute(
            select(
                DeliveryEvent.id,
                DeliveryEvent.team_id,
                DeliveryEvent.trigger_type,
                DeliveryEvent.event,
                DeliveryEvent.channels,
                DeliveryEvent.subject_id,
                DeliveryEvent.payload,
            )
            .where(DeliveryEvent.dispatched_at.is_(None))
            .order_by(DeliveryEvent.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    ).all()
    if not events:
        return 0
    hooks = (
        await session.execute(
            select(
                OutgoingWebhook.id,
                OutgoingWebhook.team_id,
                OutgoingWebhook.trigger_type,
                *_HOOK_FLAGS,
            ).where(
                OutgoingWebhook.team_id.in_({event.team_id for event in events}),
                OutgoingWebhook.disabled_at.is_(None),
            )
        )
    ).all()
    by_team: dict[int, list[Any]] = defaultdict(list)
    for hook in hooks:
        by_team[hook.team_id].append(hook)
    members = await _members(session, {e.team_id for e in events if "email" in e.channels})
    chats = await _channels(
        session, {e.team_id for e in events if e.event in CHAT_EVENTS.get(e.trigger_type, ())}
    )
    due = now + timedelta(seconds=first_delay)

    def row(event: Any, **receiver: Any) -> dict[str, Any]:
        return {
            "team_id": event.team_id,
            "event_id": event.id,
            "state": "pending",
            "attempts": 0,
            "next_attempt_at": due,
            "created_at": now,
            "updated_at": now,
            **receiver,
        }

    rows = [
        row(event, channel="webhook", webhook_id=hook.id, recipient=None, channel_id=None)
        for event in events
        for hook in by_team[event.team_id]
        if wants(hook, event.trigger_type, event.event)
    ]
    rows += [
        row(event, channel="email", webhook_id=None, recipient=address, channel_id=None)
        for event in events
        if "email" in event.channels
        for address in members[event.team_id]
    ]
    rows += [
        row(event, channel=way, webhook_id=None, recipient=None, channel_id=None)
        for event in events
        for way in ("sms", "call")
        if way in event.channels
    ]
    rows += [
        row(event, channel="apprise", webhook_id=None, recipient=None, channel_id=channel_id)
        for event in events
        if event.event in CHAT_EVENTS.get(event.trigger_type, ())
        for channel_id in chats[event.team_id]
    ]
    # Escalation policies: a run for each incident started with one; whoever a run told is
    # told of the resolution too.
    await escalation.start_runs(session, events, now=now)
    for event in events:
        if event.trigger_type == "incident_change" and event.event == "resolved":
            told = await escalation.told_of(session, incident_id=event.subject_id, now=now)
            rows += escalation.deliveries_for(event.team_id, event.id, told, due=due, now=now)
    if rows:
        await session.execute(insert(Delivery), rows)
    await session.execute(
        update(DeliveryEvent)
        .where(DeliveryEvent.id.in_([event.id for event in events]))
        .values(dispatched_at=now)
        .execution_options(synchronize_session=False)
    )
    return len(rows)
