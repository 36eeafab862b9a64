"""The metadata rules of a status page resource's edit form (status_pages_edit.py).

Each rule (`mark_as_down_metadata_rule`, `mark_as_degraded_metadata_rule`) is a key input
(`<rule>-key`) and numbered value rows (`<rule>-<i>-value`, `<rule>-count`), as the rules
of an incoming webhook's form are (integrations_rules.py). "Add a value" and "Remove" are
submit buttons (`op`: `add-<rule>`, `remove-<rule>-<i>`): the form comes back with the rows
changed, nothing stored. A plain value is a text input (the API's `{value}`); a typed value
(a user, the team, an escalation policy) is a `kept` row: shown read-only and sent back as
stored (`{type, item_id}`, the id a number where it was stored as one), so the API resolves
it again. `rule_body` makes a rule the API's attribute, sent only while its mode is
`incident_matching_metadata` (the API clears a rule whose mode is another); the API's
service checks it, and `errors_of` puts its problems beside the row's input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from watchpost.errors import Problem
from watchpost.status_pages.resource_types import MATCHING
from watchpost.status_pages.schemas import MetadataRuleIn

MOST_VALUES: Final[int] = next(
    limit.max_length
    for limit in MetadataRuleIn.model_fields["values"].metadata
    if getattr(limit, "max_length", None) is not None
)
"""The API's own limit on a rule's values: no more rows are offered."""
MODES: Final = (
    ("any_incident", "Any incident of the item"),
    ("no_incident", "No incident"),
    (MATCHING, "Incidents whose metadata match the rule below"),
)
Row = dict[str, str]
"""A value as the form holds it: `value` (a plain value's text), `kept` (a typed value as
JSON, sent back as stored) and `shown` (the kept value's words)."""


@dataclass(frozen=True)
class Rule:
    """One of the resource's two rules: its mode's field, its own field and their words."""

    field: str
    mode: str
    label: str
    mode_label: str
    heading: str


RULES: Final = (
    Rule(
        "mark_as_down_metadata_rule",
        "mark_as_down_for",
        "Rule for down",
        "Marked down by",
        "When it shows down",
    ),
    Rule(
        "mark_as_degraded_metadata_rule",
        "mark_as_degraded_for",
        "Rule for degraded",
        "Marked degraded by",
        "When it shows degraded",
    ),
)
BY_FIELD: Final = {rule.field: rule for rule in RULES}


@dataclass
class RuleRows:
    """A rule as the form shows it: its key and its value rows."""

    key: str
    rows: list[Row]


Rules = dict[str, RuleRows]


def _words(value: Mapping[str, Any]) -> str:
    """A typed value as a person reads it: "User: Ann (ann@example.com)"."""
    kind = str(value.get("type") or "Value")
    name = value.get("name") or value.get("value") or f"#{value.get('item_id')}"
    email = value.get("email")
    return f"{kind}: {name}" + (f" ({email})" if email and email != name else "")


def kept_row(value: Mapping[str, Any]) -> Row:
    return {"value": "", "kept": json.dumps(dict(value), sort_keys=True), "shown": _words(value)}


def row_of(value: Mapping[str, Any]) -> Row:
    """A stored value (as the API shows it: rule_out) as the form's row."""
    if value.get("type") == "String" and isinstance(value.get("value"), str):
        return {"value": value["value"], "kept": "", "shown": ""}
    return kept_row(value)


def rules_of(values: Mapping[str, Any]) -> Rules:
    """The stored rules (as the API shows them) as the form's rows."""
    found: Rules = {}
    for rule in RULES:
        stored = values.get(rule.field)
        if isinstance(stored, Mapping):
            rows = [row_of(value) for value in stored.get("values") or []]
            found[rule.field] = RuleRows(str(stored.get("key") or ""), rows)
        else:
            found[rule.field] = RuleRows("", [])
    return found


def _kept(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text  # not JSON: the API says it is no value


def rules_posted(form: Any) -> Rules:
    """Every rule's key and numbered rows of a posted form, in their order."""
    found: Rules = {}
    for rule in RULES:
        count = str(form.get(f"{rule.field}-count", "0"))
        total = min(int(count), MOST_VALUES) if count.isascii() and count.isdigit() else 0
        rows: list[Row] = []
        for i in range(total):
            prefix = f"{rule.field}-{i}-"
            kept = str(form.get(prefix + "kept") or "")
            if kept:
                value = _kept(kept)
                row = kept_row(value) if isinstance(value, Mapping) else {"kept": kept}
                rows.append({"value": "", "shown": kept, **row})
            else:
                rows.append({"value": str(form.get(prefix + "value") or ""), "kept": ""})
        found[rule.field] = RuleRows(str(form.get(f"{rule.field}-key") or ""), rows)
    return found


def _item(row: Row) -> Any:
    """A row as the API's value: `{value}`, or a kept one as `{type, item_id}` (else as
    stored, for the API to name what is wrong)."""
    if not row.get("kept"):
        return {"value": row.get("value", "")}
    value = _kept(row["kept"])
    if not isinstance(value, Mapping):
        return value
    if value.get("item_id") is not None:
        return {"type": value.get("type"), "item_id": value["item_id"]}
    return {k: v for k, v in value.items() if k in ("type", "value", "name", "email") and v}


def rule_body(rules: Rules, modes: Mapping[str, Any]) -> dict[str, Any]:
    """The rules as the API's attributes: each sent only while its mode (as posted) matches
    metadata; an empty one (no key, no value) as null, for the API to say it is needed."""
    body: dict[str, Any] = {}
    for rule in RULES:
        if modes.get(rule.mode) != MATCHING:
            continue
        found = rules.get(rule.field) or RuleRows("", [])
        if not found.key.strip() and not found.rows:
            body[rule.field] = None
        else:
            body[rule.field] = {"key": found.key, "values": [_item(row) for row in found.rows]}
    return body


def moved(rules: Rules, op: str) -> Rules:
    """The rules after an editing button: `add-<rule>` or `remove-<rule>-<i>`."""
    action, _, rest = op.partition("-")
    changed = {name: RuleRows(found.key, list(found.rows)) for name, found in rules.items()}
    if action == "add" and rest in BY_FIELD:
        found = changed.setdefault(rest, RuleRows("", []))
        if len(found.rows) < MOST_VALUES:
            found.rows.append({"value": "", "kept": "", "shown": ""})
    elif action == "remove":
        name, _, index = rest.rpartition("-")
        if name in changed and index.isdigit() and int(index) < len(changed[name].rows):
            del changed[name].rows[int(index)]
    return changed


# ---------------------------------------------------------------------- errors by input

_PATH: Final = re.compile(
    r"^(mark_as_\w+?_metadata_rule)(?:\.(key)\b|\.values(?:\.(\d+)|\[(\d+)\])?)?"
)


def errors_of(problems: Iterable[Problem], rules: Rules, shown: Iterable[str]) -> dict[str, str]:
    """The API's problems by the form's input ids: a rule's key or value beside its input,
    the rest of a rule beside the rule, the other fields' beside them, anything else in the
    summary (`form`)."""
    names = set(shown)
    errors: dict[str, str] = {}
    for name, message in problems:
        text = message.strip()
        key = str(name) if name in names else "form"
        found = _PATH.match(text) if name in BY_FIELD else None
        if name in BY_FIELD:
            key = str(name)
        if found is not None and found.group(1) == name:
            index = found.group(3) or found.group(4)
            rows = rules.get(str(name), RuleRows("", [])).rows
            if found.group(2):
                key = f"{name}-key"
            elif index is not None and int(index) < len(rows):
                kind = "kept" if rows[int(index)].get("kept") else "value"
                key = f"{name}-{index}-{kind}"
        errors[key] = f"{errors[key]} {text}" if key in errors else text
    return errors
