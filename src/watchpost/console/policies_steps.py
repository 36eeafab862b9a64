"""The steps editor of an escalation policy's form.

A step is a numbered row of the form (`steps-<i>-<field>`): its type is chosen when it is
added ("Add a step"), its fields are those of its type in the API's step schema
(policies/schemas.py). `row_of` turns a stored step into a row, `step_of` a row into the step
the API would receive; the domain (policies/service.py) checks it, and `step_errors` puts its
problems beside the row's fields. Waits are typed in minutes and sent in seconds.

The policy's summary in words and the names of the team's objects its steps name (`describe`,
`names`, `Names`) live in policies_words.py; they, and the form's choices defined there
(`DAYS`, `BRANCH_ACTIONS`, `MAX_CHOICES`), are re-exported here for the policies pages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from watchpost.console.policies_words import BRANCH_ACTIONS as BRANCH_ACTIONS
from watchpost.console.policies_words import DAYS as DAYS
from watchpost.console.policies_words import MAX_CHOICES as MAX_CHOICES
from watchpost.console.policies_words import Names as Names
from watchpost.console.policies_words import describe as describe
from watchpost.console.policies_words import duration as duration
from watchpost.console.policies_words import names as names
from watchpost.console.policies_words import step_words as step_words
from watchpost.errors import Problem

STEP_TYPES: Final = (
    ("escalation", "Tell people or services"),
    ("time_branching", "Branch by time of day"),
    ("metadata_branching", "Branch by incident metadata"),
    ("instructions", "Add instructions to the incident"),
    ("resolve_remove", "Resolve or remove the incident"),
)
TYPE_WORDS: Final = dict(STEP_TYPES)
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
