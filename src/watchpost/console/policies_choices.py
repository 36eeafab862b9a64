"""The choices of an escalation policy's form: the team's people, webhooks, notification
channels, PagerDuty integrations, on-call calendars and other policies, each kind through
pickers.py (at most pickers.LIMIT whose name, or a person's e-mail, contains the form's
Find text, and every one the rows already name), and the urgencies. A row naming a person
by e-mail (a stored step may) has that person ticked by id."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.console.pickers import Picked, ids_of, of_team, pick
from watchpost.console.policies_words import MAX_CHOICES, Names
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallCalendar
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.policies.models import Policy
from watchpost.teams.models import Membership, User
from watchpost.urgencies.models import Urgency
from watchpost.webhooks.models import OutgoingWebhook

KINDS: Final = (
    ("webhooks", "Webhooks", OutgoingWebhook),
    ("channels", "Notification channels", NotificationChannel),
    ("pagerduty", "PagerDuty integrations", PagerDutyIntegration),
    ("calendars", "On-call calendars", OnCallCalendar),
    ("policies", "Escalation policies", Policy),
)
"""Names' attribute, the kind in words and its model (each named by `name`)."""
ROW_LISTS: Final = ("webhooks", "channels", "pagerduty")
"""A row's lists of ticked ids named as Names' attributes."""
EMAIL: Final = "email:"


def _chosen(rows: Sequence[Mapping[str, Any]], values: Mapping[str, str]) -> dict[str, list[Any]]:
    """What the rows (and the fallback) name, by Names' attribute."""
    chosen: dict[str, list[Any]] = {name: [] for name in ("users", "calendars", "policies")}
    chosen |= {name: [] for name in ROW_LISTS}
    for row in rows:
        chosen["users"] += list(row.get("users") or [])
        chosen["calendars"] += list(row.get("on_call") or [])
        chosen["policies"] += [row.get("member_policy"), row.get("policy_id")]
        for name in ROW_LISTS:
            chosen[name] += list(row.get(name) or [])
    chosen["policies"].append(values.get("fallback_policy_id"))
    return chosen


async def choices(
    db: AsyncSession,
    team_id: int,
    rows: Sequence[Mapping[str, Any]],
    values: Mapping[str, str],
    find: str,
) -> tuple[Names, list[tuple[str, Picked]]]:
    """The form's choices, and each kind's Picked (to say which lists are cut)."""
    chosen = _chosen(rows, values)
    found = Names()
    addresses = [str(item)[len(EMAIL) :] for item in chosen["users"] if str(item).startswith(EMAIL)]
    by_email = await on_call.members(db, team_id, addresses)
    found.emails = {user.email.lower(): str(user.id) for user in by_email}
    label = func.coalesce(func.nullif(User.name, ""), User.email)
    people = (
        select(User.id, label)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.team_id == team_id)
    )
    picked = await pick(
        db,
        people,
        User.id,
        label,
        searched=(User.name, User.email),
        find=find,
        chosen=ids_of(chosen["users"]) + [user.id for user in by_email],
    )
    found.users = {str(key): name for key, name in picked.items}
    lists = [("People", picked)]
    for attr, words, model in KINDS:
        picked = await pick(
            db,
            of_team(model, team_id, model.name),
            model.id,
            model.name,
            find=find,
            chosen=ids_of(chosen[attr]),
        )
        setattr(found, attr, {str(key): name for key, name in picked.items})
        lists.append((words, picked))
    urgencies = select(Urgency).where(Urgency.team_id == team_id)
    for urgency in await db.scalars(
        urgencies.order_by(Urgency.name, Urgency.id).limit(MAX_CHOICES)
    ):
        ways = tuple(way for way in ("call", "sms", "email") if getattr(urgency, way))
        found.urgencies[str(urgency.id)] = (urgency.name, ways)
    return found, lists
