"""Whom an escalation step's members name, and in which ways people are told (the step's
urgency: e-mail, SMS, call; e-mail when it names none)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.delivery import targets
from watchpost.delivery.targets import Target
from watchpost.oncall.now import on_call_now
from watchpost.teams.models import User, team_users
from watchpost.urgencies.models import Urgency
from watchpost.webhooks.models import OutgoingWebhook

PERSON_WAYS: Final = ("email", "sms", "call")
"""The ways an urgency can tell people here (`push` and `critical_alert` have no service)."""


async def ways_of(session: AsyncSession, team_id: int, urgency_id: int | None) -> tuple[str, ...]:
    """How a step tells people: its urgency's ways, or e-mail when it names none."""
    if urgency_id is None:
        return ("email",)
    urgency = await session.scalar(
        select(Urgency).where(Urgency.id == urgency_id, Urgency.team_id == team_id)
    )
    if urgency is None:
        return ("email",)
    return tuple(way for way in PERSON_WAYS if getattr(urgency, way))


def people(emails: Sequence[str], ways: Sequence[str]) -> list[Target]:
    """The targets telling these people (their addresses) in these ways: an e-mail, an SMS
    and a call each (the SMS and call go to the person's numbers, found when sent:
    phone_targets.py)."""
    return [
        {"channel": way, "recipient": email}
        for email in emails
        for way in PERSON_WAYS
        if way in ways
    ]


async def members_of(
    session: AsyncSession,
    team_id: int,
    members: list[dict[str, Any]],
    ways: Sequence[str],
    *,
    metadata: dict[str, Any],
    now: datetime,
) -> list[Target]:
    """Whom a step's members name: people in the step's ways, the rest as they are
    (`incident_metadata`: the team members whose e-mails the incident's metadata holds under
    the member's key; `current_on_call`: whoever is on call `now` in the member's calendar, the
    default one when it names none)."""
    found: list[Target] = []
    for member in members:
        kind, ident = member.get("type"), member.get("id")
        if kind == "entire_team":
            team = (await targets.members(session, {team_id}))[team_id]
            found += people([target["recipient"] for target in team], ways)
        elif kind in ("user", "incident_metadata"):
            user = team_users(team_id).with_only_columns(User.email)
            if kind == "incident_metadata":
                key = member.get("metadata_key") or ""
                named = [str(value).strip().lower() for value in metadata.get(key, [])]
                user = user.where(User.email.in_(named))
            elif ident:
                user = user.where(User.id == ident)
            else:
                user = user.where(User.email == (member.get("email") or "").lower())
            found += people(list(await session.scalars(user)), ways)
        elif kind == "current_on_call":
            on_call = await on_call_now(session, team_id, ident, now)
            found += people([user.email for user in on_call], ways)
        elif kind in ("webhook", "all_webhook_integrations"):
            hooks = select(OutgoingWebhook.id).where(
                OutgoingWebhook.team_id == team_id, OutgoingWebhook.disabled_at.is_(None)
            )
            if kind == "webhook":
                hooks = hooks.where(OutgoingWebhook.id == ident)
            found += [{"channel": "webhook", "webhook_id": i} for i in await session.scalars(hooks)]
        elif kind == "pagerduty_integration":
            paged = (await targets.pagerduty(session, {team_id}, alongside=False))[team_id]
            found += [target for target in paged if target["pagerduty_id"] == ident]
        elif kind in ("notification_channel", "all_notification_channels"):
            chats = (await targets.channels(session, {team_id}))[team_id]
            found += [
                c for c in chats if kind != "notification_channel" or c["channel_id"] == ident
            ]
    return targets.unique(found)
