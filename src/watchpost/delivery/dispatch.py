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

from watchpost.delivery import escalation, extensions, targets
from watchpost.delivery.models import Delivery, DeliveryEvent
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


CHAT_EVENTS: Final[dict[str, tuple[str, ...]]] = {
    "incident_change": ("started", "reopened", "resolved")
}
"""What every notification channel of the team is told (escalation steps may name channels
besides)."""
PAGED_EVENTS: Final = ("started", "acknowledged", "resolved", "reopened")
"""The incident events PagerDuty hears of (trigger, acknowledge, resolve, trigger again)."""


def _paged(event: Any) -> bool:
    """Whether the team's PagerDuty integrations told alongside its people hear of the event:
    an incident event of an incident without an escalation policy (a policy names its own)."""
    return (
        event.trigger_type == "incident_change"
        and event.event in PAGED_EVENTS
        and event.payload["data"]["attributes"].get("escalation_policy_id") is None
    )


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
    emailed = await targets.members(session, {e.team_id for e in events if "email" in e.channels})
    phoned = await targets.phoned(
        session, {e.team_id for e in events if {"sms", "call"} & set(e.channels)}
    )
    chats = await targets.channels(
        session, {e.team_id for e in events if e.event in CHAT_EVENTS.get(e.trigger_type, ())}
    )
    paged = await targets.pagerduty(session, {e.team_id for e in events if _paged(e)})
    registered = await extensions.targets_of(session, events, now)
    # Escalation policies: a run for each incident started with one.
    await escalation.start_runs(session, events, now=now)
    due = now + timedelta(seconds=first_delay)
    rows: list[dict[str, Any]] = []
    for event in events:
        told = [
            {"channel": "webhook", "webhook_id": hook.id}
            for hook in by_team[event.team_id]
            if wants(hook, event.trigger_type, event.event)
        ]
        if "email" in event.channels:
            told += emailed[event.team_id]
        for way in ("sms", "call"):
            if way in event.channels:
                told += targets.phone_targets(way, phoned[event.team_id])
        if event.event in CHAT_EVENTS.get(event.trigger_type, ()):
            told += chats[event.team_id]
        if _paged(event):
            told += paged[event.team_id]
        told += registered.get(event.id, [])
        if event.trigger_type == "incident_change" and event.event == "resolved":
            # whoever a policy told hears of the resolution too
            told += await escalation.told_of(session, incident_id=event.subject_id, now=now)
        rows += targets.deliveries_for(
            event.team_id, event.id, targets.unique(told), due=due, now=now
        )
    if rows:
        await session.execute(insert(Delivery), rows)
    await session.execute(
        update(DeliveryEvent)
        .where(DeliveryEvent.id.in_([event.id for event in events]))
        .values(dispatched_at=now)
        .execution_options(synchronize_session=False)
    )
    return len(rows)
