"""An escalation policy in words, and the names of the team's objects its steps name.

`describe` says what a stored policy does ("At once, e-mail whoever is on call (Primary);
after 15 min more, e-mail the whole team; then repeat 3 times, 10 min apart"), naming the
team's objects from `Names`, read once per page for every policy shown (no query per row;
the form's choices are read by policies_choices.py into the same `Names`). `DAYS`
and `BRANCH_ACTIONS` are the words for a branching step's days and actions, which the steps
editor's form (policies_steps.py) offers too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.oncall.models import OnCallCalendar
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.policies.models import Policy
from watchpost.teams.models import User, team_users
from watchpost.urgencies.models import Urgency
from watchpost.webhooks.models import OutgoingWebhook

MAX_CHOICES: Final = 1000
"""At most this many of a kind of the objects steps name are read (and of urgencies offered)."""
DAYS: Final = (
    ("mon", "Monday"),
    ("tue", "Tuesday"),
    ("wed", "Wednesday"),
    ("thu", "Thursday"),
    ("fri", "Friday"),
    ("sat", "Saturday"),
    ("sun", "Sunday"),
)
BRANCH_ACTIONS: Final = (
    ("escalate_to_policy", "Run the chosen policy instead"),
    ("do_not_escalate", "Stop: tell nobody more"),
    ("resolve_incident", "Resolve the incident"),
    ("remove_incident", "Remove the incident"),
)

# ------------------------------------------------------------------------------- names


@dataclass
class Names:
    """The team's objects a policy's steps name, by kind and id: what `describe` says and
    what the form offers."""

    users: dict[str, str] = field(default_factory=dict)
    emails: dict[str, str] = field(default_factory=dict)
    webhooks: dict[str, str] = field(default_factory=dict)
    channels: dict[str, str] = field(default_factory=dict)
    pagerduty: dict[str, str] = field(default_factory=dict)
    calendars: dict[str, str] = field(default_factory=dict)
    policies: dict[str, str] = field(default_factory=dict)
    urgencies: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    """An urgency's name and the ways it tells people."""


async def _named(db: AsyncSession, model: Any, team_id: int, ids: set[int]) -> dict[str, str]:
    stmt = select(model.id, model.name).where(model.team_id == team_id)
    if not ids:
        return {}
    stmt = stmt.where(model.id.in_(sorted(ids)[:MAX_CHOICES]))
    rows = await db.execute(stmt.order_by(model.name, model.id).limit(MAX_CHOICES))
    return {str(row_id): name for row_id, name in rows}


def _ids(steps: Iterable[Mapping[str, Any]], kind: str) -> set[int]:
    return {
        member["id"]
        for step in steps
        for member in step.get("step_members") or []
        if member.get("type") == kind and isinstance(member.get("id"), int)
    }


async def names(
    db: AsyncSession,
    team_id: int,
    steps: Sequence[Mapping[str, Any]],
    *,
    also: Iterable[int] = (),
) -> Names:
    """The names of what steps name. One query a kind."""
    listed = list(steps)

    def wanted(kind: str) -> set[int]:
        return _ids(listed, kind)

    found = Names()
    user_ids = wanted("user")
    emails = {
        str(m.get("email")).lower()
        for s in listed
        for m in s.get("step_members") or []
        if m.get("type") == "user" and m.get("email")
    }
    people = team_users(team_id).order_by(User.name, User.id).limit(MAX_CHOICES)
    people = people.where(
        User.id.in_(sorted(user_ids or {0})) | User.email.in_(sorted(emails) or [""])
    )
    for user in await db.scalars(people):
        found.users[str(user.id)] = user.name or user.email
        found.emails[user.email.lower()] = str(user.id)
    found.webhooks = await _named(db, OutgoingWebhook, team_id, wanted("webhook"))
    found.channels = await _named(db, NotificationChannel, team_id, wanted("notification_channel"))
    found.pagerduty = await _named(
        db, PagerDutyIntegration, team_id, wanted("pagerduty_integration")
    )
    found.calendars = await _named(db, OnCallCalendar, team_id, wanted("current_on_call"))
    policy_ids = (
        _ids(listed, "policy")
        | set(also)
        | {s["policy_id"] for s in listed if isinstance(s.get("policy_id"), int)}
    )
    found.policies = await _named(db, Policy, team_id, policy_ids)
    urgency_ids = {s["urgency_id"] for s in listed if isinstance(s.get("urgency_id"), int)}
    stmt = select(Urgency).where(Urgency.team_id == team_id)
    stmt = stmt.where(Urgency.id.in_(sorted(urgency_ids) or [0]))
    for urgency in await db.scalars(stmt.order_by(Urgency.name, Urgency.id).limit(MAX_CHOICES)):
        ways = tuple(way for way in ("call", "sms", "email") if getattr(urgency, way))
        found.urgencies[str(urgency.id)] = (urgency.name, ways)
    return found


# --------------------------------------------------------------------------- in words

_VERBS: Final = {"call": "call", "sms": "text", "email": "e-mail"}
PEOPLE: Final = ("current_on_call", "entire_team", "user", "incident_metadata")
"""Members that are people: told in the ways of the step's urgency."""


def duration(seconds: int) -> str:
    """5 min, 2 h, 1 h 30 min, 2 days."""
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    if hours < 48 or rest:
        return f"{hours} h" + (f" {rest} min" if rest else "")
    return f"{hours // 24} days" if hours % 24 == 0 else f"{hours} h"


def _who(member: Mapping[str, Any], found: Names) -> str:
    kind, ident = member.get("type"), member.get("id")
    key = str(ident)
    if kind == "current_on_call":
        if ident is None:
            return "whoever is on call"
        return f"whoever is on call in {found.calendars.get(key, f'calendar {key}')}"
    if kind == "entire_team":
        return "the whole team"
    if kind == "user":
        if ident is None:
            email = str(member.get("email") or "").lower()
            return found.users.get(found.emails.get(email, ""), email)
        return found.users.get(key, f"person {key}")
    if kind == "webhook":
        return f"webhook {found.webhooks.get(key, key)}"
    if kind == "notification_channel":
        return f"channel {found.channels.get(key, key)}"
    if kind == "pagerduty_integration":
        return f"PagerDuty {found.pagerduty.get(key, key)}"
    if kind == "policy":
        return f"policy {found.policies.get(key, key)}"
    if kind == "all_webhook_integrations":
        return "every webhook"
    if kind == "all_notification_channels":
        return "every notification channel"
    if kind == "incident_metadata":
        return f"the people in the incident's “{member.get('metadata_key', '')}”"
    return str(kind or "someone").replace("_", " ")


def _listed(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _how(step: Mapping[str, Any], found: Names) -> str:
    urgency = step.get("urgency_id")
    ways = ("email",) if urgency is None else found.urgencies.get(str(urgency), ("", ("email",)))[1]
    return _listed([_VERBS[way] for way in ways]) or "tell"


def _when(step: Mapping[str, Any], first: bool) -> str:
    if step.get("wait_until_time"):
        zone = step.get("wait_until_timezone") or "UTC"
        return f"at {step['wait_until_time']} ({zone})"
    wait = int(step.get("wait_before") or 0)
    if wait == 0:
        return "at once" if first else "then"
    return f"after {duration(wait)}" if first else f"{duration(wait)} later"


def step_words(step: Mapping[str, Any], found: Names, *, first: bool) -> str:
    """One stored step in words."""
    kind = step.get("type")
    when = _when(step, first)
    when = when if when == "then" else when + ","
    if kind == "escalation":
        members = step.get("step_members") or []
        people = [_who(m, found) for m in members if m.get("type") in PEOPLE]
        others = [_who(m, found) for m in members if m.get("type") not in PEOPLE]
        said = [f"{_how(step, found)} {_listed(people)}"] if people else []
        said += [f"notify {_listed(others)}"] if others else []
        return f"{when} {' and '.join(said) or 'tell nobody'}"
    if kind in ("time_branching", "metadata_branching"):
        if kind == "time_branching":
            days = [dict(DAYS).get(d, d)[:3] for d in step.get("days") or []]
            rule = (
                f"between {step.get('time_from', '00:00')} and {step.get('time_to', '00:00')} "
                f"({step.get('timezone', 'UTC')})" + (f" on {', '.join(days)}" if days else "")
            )
        else:
            values = [str(v.get("value")) for v in step.get("metadata_values") or []]
            rule = f"if “{step.get('metadata_key', '')}” is {' or '.join(values) or 'empty'}"
        action = step.get("action_type") or "escalate_to_policy"
        if action == "escalate_to_policy":
            key = str(step.get("policy_id"))
            what = f"run policy {found.policies.get(key, key)}"
        else:
            what = dict(BRANCH_ACTIONS)[action].lower()
        return f"{when} {rule}: {what}"
    if kind == "instructions":
        return f"{when} add instructions to the incident"
    if kind == "resolve_remove":
        action = "remove" if step.get("action_type") == "remove_incident" else "resolve"
        return f"{when} {action} the incident"
    return f"{when} {str(kind).replace('_', ' ')}"


def describe(policy: Policy, found: Names) -> str:
    """The policy in one sentence, from its stored steps."""
    steps = list(policy.steps or [])
    if not steps:
        return "No steps: tells nobody."
    parts = [step_words(step, found, first=i == 0) for i, step in enumerate(steps)]
    text = "; ".join(parts)
    text = text[:1].upper() + text[1:]
    if policy.repeat_count:
        times = "once" if policy.repeat_count == 1 else f"{policy.repeat_count} times"
        gap = f", {duration(policy.repeat_delay)} apart" if policy.repeat_delay else ""
        text += f"; then repeat {times}{gap}"
    if policy.fallback_policy_id is not None:
        key = str(policy.fallback_policy_id)
        text += f"; then run policy {found.policies.get(key, key)}"
    return text + "."
