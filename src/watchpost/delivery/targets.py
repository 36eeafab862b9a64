"""Who a delivery goes to, and the delivery rows made for them.

A target is {"channel": "webhook", "webhook_id": …}, {"channel": "email", "recipient": …},
{"channel": "sms"|"call", "recipient": … (a person told: their e-mail; without one, the
recipients the service URL names)} or {"channel": "apprise", "channel_id":
…} or {"channel": "pagerduty", "pagerduty_id": …}; dispatch
(the event's receivers) and escalation (a step's members) both name targets, and both make
their rows here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.teams.models import Membership, User

Target = dict[str, Any]


def deliveries_for(
    team_id: int, event_id: int, targets: Sequence[Target], *, due: datetime, now: datetime
) -> list[dict[str, Any]]:
    """Pending delivery rows of one event to each target, due at `due`."""
    return [
        {
            "team_id": team_id,
            "event_id": event_id,
            "channel": target["channel"],
            "webhook_id": target.get("webhook_id"),
            "recipient": target.get("recipient"),
            "channel_id": target.get("channel_id"),
            "pagerduty_id": target.get("pagerduty_id"),
            "subscriber_id": target.get("subscriber_id"),
            "state": "pending",
            "attempts": 0,
            "next_attempt_at": due,
            "created_at": now,
            "updated_at": now,
        }
        for target in targets
    ]


def unique(targets: Iterable[Target]) -> list[Target]:
    """The targets in order, each once."""
    kept: list[Target] = []
    for target in targets:
        if target not in kept:
            kept.append(target)
    return kept


async def members(session: AsyncSession, team_ids: set[int]) -> dict[int, list[Target]]:
    """Each team's members, as e-mail targets."""
    found: dict[int, list[Target]] = defaultdict(list)
    if team_ids:
        rows = await session.execute(
            select(Membership.team_id, User.email)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.team_id.in_(team_ids))
            .order_by(User.id)
        )
        for team_id, email in rows:
            found[team_id].append({"channel": "email", "recipient": email})
    return found


async def phoned(session: AsyncSession, team_ids: set[int]) -> dict[int, list[str]]:
    """Each team's members who have a phone number (their e-mails): whom an incident's own
    `sms` / `call` flag tells."""
    found: dict[int, list[str]] = defaultdict(list)
    if team_ids:
        rows = await session.execute(
            select(Membership.team_id, User.email, User.phone_numbers)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.team_id.in_(team_ids))
            .order_by(User.id)
        )
        for team_id, email, numbers in rows:
            if numbers:
                found[team_id].append(email)
    return found


def phone_targets(way: str, emails: Sequence[str]) -> list[Target]:
    """An incident's own `sms` / `call` flag: a delivery to each of these people, or, when
    nobody has a number, one to the recipients the service URL names (phone_targets.py)."""
    if not emails:
        return [{"channel": way}]
    return [{"channel": way, "recipient": email} for email in emails]


async def channels(session: AsyncSession, team_ids: set[int]) -> dict[int, list[Target]]:
    """Each team's notification channels, as Apprise targets."""
    found: dict[int, list[Target]] = defaultdict(list)
    if team_ids:
        rows = await session.execute(
            select(NotificationChannel.team_id, NotificationChannel.id)
            .where(NotificationChannel.team_id.in_(team_ids))
            .order_by(NotificationChannel.id)
        )
        for team_id, channel_id in rows:
            found[team_id].append({"channel": "apprise", "channel_id": channel_id})
    return found


async def pagerduty(
    session: AsyncSession, team_ids: set[int], *, alongside: bool = True
) -> dict[int, list[Target]]:
    """Each team's PagerDuty integrations (those told alongside the team's people, unless
    `alongside` is False: all of them)."""
    found: dict[int, list[Target]] = defaultdict(list)
    if team_ids:
        query = select(PagerDutyIntegration.team_id, PagerDutyIntegration.id).where(
            PagerDutyIntegration.team_id.in_(team_ids)
        )
        if alongside:
            query = query.where(PagerDutyIntegration.notify_alongside_primary_responder.is_(True))
        for team_id, integration_id in await session.execute(
            query.order_by(PagerDutyIntegration.id)
        ):
            found[team_id].append({"channel": "pagerduty", "pagerduty_id": integration_id})
    return found
