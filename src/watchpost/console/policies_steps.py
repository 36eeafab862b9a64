"""The steps editor of an escalation policy's form, and the policy's summary in words.

A step is a numbered row of the form (`steps-<i>-<field>`): its type is chosen when it is
added ("Add a step"), its fields are those of its type in the API's step schema
(policies/schemas.py). `row_of` turns a stored step into a row, `step_of` a row into the step
the API would receive; the domain (policies/service.py) checks it, and `step_errors` puts its
problems beside the row's fields. Waits are typed in minutes and sent in seconds.

`describe` says what a stored policy does ("At once, e-mail whoever is on call (Primary);
after 15 min more, e-mail the whole team; then repeat 3 times, 10 min apart"), naming the
team's objects from `Names`, read once per page for every policy shown (no query per row).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.errors import Problem
from watchpost.oncall.models import OnCallCalendar
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.policies.models import Policy
from watchpost.teams.models import User, team_users
from watchpost.urgencies.models import Urgency
from watchpost.webhooks.models import OutgoingWebhook

MAX_CHOICES: Final = 1000
"""At most this many of a kind of the team's objects are offered in a step's choices."""
STEP_TYPES: Final = (
    ("escalation", "Tell people or services"),
    ("time_branching", "Branch by time of day"),
    ("metadata_branching", "Branch by incident metadata"),
    ("instructions", "Add instructions to the incident"),
    ("resolve_remove", "Resolve or remove the incident"),
)
TYPE_WORDS: Final = dict(STEP_TYPES)
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
END_ACTIONS: Final = (
    ("resolve_incident", "Resolve the incident"),
    ("remove_incident", "Remove the incident"),
)
DEFAULT_CALENDAR: Final = "default"
"""The on-call choice naming the team's default calendar (a member without an id)."""
PICKED: Final = {
    "user": "users",
    "webhook": "webhooks",
    "notification_channel": "channels",
    "pagerduty_integration": "pagerduty",
}
"""Member types chosen among the team's objects, and the row's list of their ids."""
FLAGS: Final = {
    "entire_team": "team",
    "all_webhook_integrations": "all_webhooks",
    "all_notification_channels": "all_channels",
}
TEXTS: Final = (
    "type",
    "wait",
    "wait_until_time",
    "wait_until_timezone",
    "urgency_id",
    "metadata_member",
    "member_policy",
    "kept",
    "timezone",
    "time_from",
    "time_to",
    "metadata_key",
    "metadata_values",
    "metadata_kept",
    "action_type",
    "policy_id",
    "instructions_comment",
    "reminder_hours",
)
LISTS: Final = ("on_call", "users", "webhooks", "channels", "pagerduty", "days")
BOOLS: Final = ("team", "all_webhooks", "all_channels", "reminder")
Row = dict[str, Any]
"""A step as the form holds it: texts, lists of ticked ids and checkboxes."""


def blank_row(step_type: str) -> Row:
    row: Row = {name: "" for name in TEXTS}
    row |= {name: [] for name in LISTS}
    row |= {name: False for name in BOOLS}
    row["type"] = step_type if step_type in TYPE_WORDS else "escalation"
    return row


def _minutes(seconds: Any) -> str:
    if not isinstance(seconds, int):
        return ""
    return str(seconds // 60) if seconds % 60 == 0 else f"{seconds / 60:g}"


def seconds_of(text: str) -> int | str | None:
    """Minutes typed as the API's seconds; None when empty; the text itself when it is no
    number (the domain names the problem)."""
    stripped = text.strip()
    if not stripped:
        return None
    try:
        minutes = float(stripped)
    except ValueError:
        return text
    if minutes != minutes or abs(minutes) > 1e9:  # NaN, or absurd: the domain says why
        return text
    return round(minutes * 60)


def _plain(value: Mapping[str, Any]) -> bool:
    """A metadata value the form shows as text: a String with a value, nothing else."""
    return (
        set(value) <= {"type", "value"}
        and value.get("type", "String") == "String"
        and isinstance(value.get("value"), str)
        and "," not in value["value"]
        and value["value"].strip() == value["value"] != ""
    )


def _json_list(text: str) -> list[dict[str, Any]]:
    try:
        found = json.loads(text) if text else []
    except ValueError:
        return []
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def row_of(step: Mapping[str, Any]) -> Row:
    """A stored step as the form's row."""
    row = blank_row(str(step.get("type", "escalation")))
    row["wait"] = _minutes(step.get("wait_before"))
    for name in ("wait_until_time", "wait_until_timezone", "timezone", "time_from", "time_to"):
        row[name] = str(step.get(name) or "")
    for name in ("metadata_key", "action_type", "instructions_comment"):
        row[name] = str(step.get(name) or "")
    for name in ("urgency_id", "policy_id"):
        row[name] = "" if step.get(name) is None else str(step[name])
    row["days"] = [str(day) for day in step.get("days") or []]
    plain = [v for v in step.get("metadata_values") or [] if _plain(v)]
    row["metadata_values"] = ", ".join(str(v["value"]) for v in plain)
    other = [dict(v) for v in step.get("metadata_values") or [] if not _plain(v)]
    row["metadata_kept"] = json.dumps(other) if other else ""  # no_value, items …: as stored
    row["reminder"] = bool(step.get("instructions_reminder_enabled"))
    hours = step.get("instructions_reminder_interval_hours")
    row["reminder_hours"] = "" if hours is None else str(hours)
    kept: list[dict[str, Any]] = []
    for member in step.get("step_members") or []:
        kind, ident = member.get("type"), member.get("id")
        if kind == "current_on_call":
            row["on_call"].append(DEFAULT_CALENDAR if ident is None else str(ident))
        elif kind in FLAGS:
            row[FLAGS[kind]] = True
        elif kind == "user" and ident is None and member.get("email"):
            row["users"].append("email:" + str(member["email"]).lower())
        elif kind in PICKED and ident is not None:
            row[PICKED[kind]].append(str(ident))
        elif kind == "incident_metadata" and not row["metadata_member"]:
            row["metadata_member"] = str(member.get("metadata_key") or "")
        elif kind == "policy" and ident is not None and not row["member_policy"]:
            row["member_policy"] = str(ident)
        else:
            kept.append(dict(member))  # Slack, Teams, Zapier …: stored, kept as they are
    row["kept"] = json.dumps(kept) if kept else ""
    return row


def rows_posted(form: Any) -> list[Row]:
    """The numbered rows of a posted form, in their order (`steps-<i>-…`, i from 0)."""
    count = form.get("step_count", "0")
    total = min(int(count), 50) if str(count).isdigit() else 0
    rows: list[Row] = []
    for i in range(total):
        prefix = f"steps-{i}-"
        row = blank_row(str(form.get(prefix + "type", "")))
        for name in TEXTS[1:]:
            row[name] = str(form.get(prefix + name) or "")
        for name in LISTS:
            row[name] = [str(value) for value in form.getlist(prefix + name)]
        for name in BOOLS:
            row[name] = form.get(prefix + name) is not None
        rows.append(row)
    return rows


def _number(text: str) -> int | str | None:
    stripped = text.strip()
    if not stripped:
        return None
    return int(stripped) if stripped.isascii() and stripped.isdigit() else text


def _members(row: Row) -> list[dict[str, Any]]:
    members: list[dict[str, Any]] = []
    for calendar in row["on_call"]:
        ident = None if calendar == DEFAULT_CALENDAR else _number(calendar)
        members.append({"type": "current_on_call", "id": ident})
    for kind, name in FLAGS.items():
        if row[name]:
            members.append({"type": kind})
    for kind, name in PICKED.items():
        for ident in row[name]:
            if kind == "user" and ident.startswith("email:"):
                members.append({"type": "user", "email": ident[len("email:") :]})
            else:
                members.append({"type": kind, "id": _number(ident)})
    if row["metadata_member"].strip():
        members.append({"type": "incident_metadata", "metadata_key": row["metadata_member"]})
    if row["member_policy"].strip():
        members.append({"type": "policy", "id": _number(row["member_policy"])})
    return members + _json_list(row["kept"])


def step_of(row: Row) -> dict[str, Any]:
    """The row as the step the API would receive (empty fields left out)."""
    kind = row["type"]
    step: dict[str, Any] = {"type": kind}
    if (wait := seconds_of(row["wait"])) is not None:
        step["wait_before"] = wait
    for name in ("wait_until_time", "wait_until_timezone"):
        if row[name].strip():
            step[name] = row[name].strip()
    if kind == "escalation":
        step["step_members"] = _members(row)
        if (urgency := _number(row["urgency_id"])) is not None:
            step["urgency_id"] = urgency
    elif kind in ("time_branching", "metadata_branching"):
        if kind == "time_branching":
            for name in ("timezone", "time_from", "time_to"):
                if row[name].strip():
                    step[name] = row[name].strip()
            if row["days"]:
                step["days"] = list(row["days"])
        else:
            step["metadata_key"] = row["metadata_key"].strip()
            values = [v.strip() for v in row["metadata_values"].split(",") if v.strip()]
            typed = [{"type": "String", "value": v} for v in values]
            step["metadata_values"] = typed + _json_list(row["metadata_kept"])
        if row["action_type"]:
            step["action_type"] = row["action_type"]
        if (policy := _number(row["policy_id"])) is not None:
            step["policy_id"] = policy
    elif kind == "instructions":
        step["instructions_comment"] = row["instructions_comment"]
        if row["reminder"]:
            step["instructions_reminder_enabled"] = True
        if (hours := _number(row["reminder_hours"])) is not None:
            step["instructions_reminder_interval_hours"] = hours
    elif kind == "resolve_remove":
        step["action_type"] = row["action_type"] or "resolve_incident"
    return step


def moved(rows: list[Row], op: str, new_type: str) -> list[Row]:
    """The rows after an editing button: add, remove-<i>, up-<i>, down-<i>."""
    rows = list(rows)
    action, _, index = op.partition("-")
    if action == "add":
        if len(rows) < 50:
            rows.append(blank_row(new_type))
        return rows
    if not index.isdigit() or int(index) >= len(rows):
        return rows
    i = int(index)
    if action == "remove":
        del rows[i]
    elif action == "up" and i > 0:
        rows[i - 1], rows[i] = rows[i], rows[i - 1]
    elif action == "down" and i + 1 < len(rows):
        rows[i + 1], rows[i] = rows[i], rows[i + 1]
    return rows


# ---------------------------------------------------------------------- errors by field

_SUB: Final = {
    "wait_before": "wait",
    "step_members": "who",
    "instructions_reminder_interval_hours": "reminder_hours",
    "instructions_reminder_enabled": "reminder",
    "metadata_values": "metadata_values",
}
_STEP_PATH = re.compile(r"^steps(?:\.(\d+)|\[(\d+)\])\.?([a-z_]+)?(?:\[\d+\]|\.\d+)?(?:\.[a-z_]+)?")
TOP_FIELDS: Final = (
    "name",
    "repeat_count",
    "repeat_delay",
    "policy_group_id",
    "fallback_policy_id",
)


def step_errors(problems: Iterable[Problem], count: int) -> dict[str, str]:
    """The domain's problems by the form's field ids: a step's beside its row's field
    (`steps-<i>-<field>`, "Step 2: …"), the policy's beside theirs, the rest in the summary."""
    errors: dict[str, str] = {}

    def add(key: str, message: str) -> None:
        errors[key] = f"{errors[key]} {message}" if key in errors else message

    for name, message in problems:
        text = message.strip()
        found = _STEP_PATH.match(name or "") or _STEP_PATH.match(text)
        if found and int(found.group(1) or found.group(2)) < count:
            i = int(found.group(1) or found.group(2))
            sub = found.group(3) or "type"
            said = text[found.end() :].strip(" :") if text.startswith("steps") else text
            said = said or "is not valid"
            key = f"steps-{i}-{_SUB.get(sub, sub)}"
            add(key, f"Step {i + 1}: {words_of(sub)} {said}")
        elif name in TOP_FIELDS:
            add(str(name), text)
        else:
            add("form", text)
    return errors


def words_of(name: str) -> str:
    spoken = {"wait_before": "wait", "step_members": "who", "policy_id": "policy"}
    return spoken.get(name, name.replace("_", " "))


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


async def _named(
    db: AsyncSession, model: Any, team_id: int, ids: set[int] | None
) -> dict[str, str]:
    stmt = select(model.id, model.name).where(model.team_id == team_id)
    if ids is not None:
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
    steps: Sequence[Mapping[str, Any]] | None = None,
    *,
    also: Iterable[int] = (),
) -> Names:
    """The names of what steps name (all the team's, up to MAX_CHOICES a kind, with None:
    the form's choices). One query a kind."""
    every = steps is None
    listed = list(steps or [])

    def wanted(kind: str) -> set[int] | None:
        return None if every else _ids(listed, kind)

    found = Names()
    user_ids = wanted("user")
    emails = {
        str(m.get("email")).lower()
        for s in listed
        for m in s.get("step_members") or []
        if m.get("type") == "user" and m.get("email")
    }
    people = team_users(team_id).order_by(User.name, User.id).limit(MAX_CHOICES)
    if not every:
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
        None
        if every
        else _ids(listed, "policy")
        | set(also)
        | {s["policy_id"] for s in listed if isinstance(s.get("policy_id"), int)}
    )
    found.policies = await _named(db, Policy, team_id, policy_ids)
    urgency_ids = (
        None if every else {s["urgency_id"] for s in listed if isinstance(s.get("urgency_id"), int)}
    )
    stmt = select(Urgency).where(Urgency.team_id == team_id)
    if urgency_ids is not None:
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
