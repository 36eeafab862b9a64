"""The rules and fields editor of an incoming webhook's form (integrations_incoming_form.py).

Each of the API's rule lists (`started_rules` …), single fields (`title_field` …) and field
lists (`other_started_fields` …) is a group of numbered rows (`<group>-<i>-<attribute>`,
`<group>-count`), one input per attribute of the API's Rule or ExtractedField
(incoming/schemas.py). "Add" and "Remove" are submit buttons (`op`: `add-<group>`,
`remove-<group>-<i>`): the form comes back with the rows changed, nothing stored. A stored
rule or field the form cannot show (an attribute, target or match it does not know) is a
`kept` row: shown read-only and sent back exactly as stored. `body_of` makes the groups the
API's attributes (an empty input is null); the API's service checks them, and `errors_of`
puts its problems beside the row's input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, get_args

from watchpost.errors import Problem
from watchpost.incoming import schemas

RULE_WORDS: Final = {
    "started": "start an incident",
    "acknowledged": "acknowledge it",
    "resolved": "resolve it",
}
RULE_TYPE_CHOICES: Final = (
    ("unused", "Unused"),
    ("all", "All rules must hold"),
    ("any", "Any rule may hold"),
)
TARGET_WORDS: Final = {
    "body": "The body, as text",
    "json": "A value of the JSON body",
    "header": "A header",
    "query_string": "A query parameter",
    "xml": "A value of the XML body (stored, never matched)",
}
TARGETS: Final = tuple(
    (key, TARGET_WORDS[key]) for key in get_args(schemas.Target) if key in schemas.WEBHOOK_TARGETS
)
RULE_MATCHES: Final = (
    ("equals", "equals"),
    ("equals_not", "does not equal"),
    ("contains", "contains"),
    ("contains_not", "does not contain"),
    ("matches_regex", "matches the regular expression"),
    ("matches_regex_not", "does not match the regular expression"),
)
FIELD_MATCHES: Final = (
    ("match_everything", "The whole value"),
    ("match_before", "The text before the text below"),
    ("match_after", "The text after the text below"),
    ("match_between", "The text between two texts"),
    ("match_regex", "The regular expression's first group (or whole match)"),
)
RULE_ATTRIBUTES: Final = tuple(schemas.Rule.model_fields)
FIELD_ATTRIBUTES: Final = tuple(schemas.ExtractedField.model_fields)
Row = dict[str, str]
"""A rule or field as the form holds it: every attribute as text, and `kept` (the stored
item as JSON, when the form cannot show it)."""


@dataclass(frozen=True)
class Group:
    """One of the API's rule lists, single fields or field lists, as the form shows it."""

    name: str
    label: str
    noun: str
    rules: bool
    single: bool

    @property
    def most(self) -> int:
        return 1 if self.single else schemas.RULES_MAX

    @property
    def attributes(self) -> tuple[str, ...]:
        return RULE_ATTRIBUTES if self.rules else FIELD_ATTRIBUTES

    @property
    def target(self) -> str:
        return "rule_target" if self.rules else "field_target"


GROUPS: Final = (
    *(
        Group(f"{kind}_rules", f"Rules to {words}", "rule", rules=True, single=False)
        for kind, words in RULE_WORDS.items()
    ),
    Group("title_field", "Incident title", "title", rules=False, single=True),
    Group("cause_field", "Incident cause", "cause", rules=False, single=True),
    *(
        Group(f"{kind}_alert_id_field", f"Alert id when {verb}", "alert id", False, True)
        for kind, verb in (
            ("started", "starting"),
            ("acknowledged", "acknowledging"),
            ("resolved", "resolving"),
        )
    ),
    *(
        Group(f"other_{kind}_fields", f"Other fields when {verb}", "field", False, False)
        for kind, verb in (
            ("started", "starting"),
            ("acknowledged", "acknowledging"),
            ("resolved", "resolving"),
        )
    ),
)
BY_NAME: Final = {group.name: group for group in GROUPS}
Rows = dict[str, list[Row]]


def blank(group: Group) -> Row:
    row = dict.fromkeys(group.attributes, "")
    row[group.target] = "json"
    row["match_type"] = "equals" if group.rules else "match_everything"
    row["kept"] = ""
    return row


def knows(group: Group, item: Any) -> bool:
    """Whether the form can show a stored item: known attributes, texts, a target and a
    match among its choices."""
    matches = RULE_MATCHES if group.rules else FIELD_MATCHES
    return (
        isinstance(item, dict)
        and set(item) <= set(group.attributes)
        and all(value is None or isinstance(value, str) for value in item.values())
        and item.get(group.target) in TARGET_WORDS
        and item.get("match_type") in dict(matches)
    )


def row_of(group: Group, item: Any) -> Row:
    """A stored rule or field as the form's row (as `kept` when the form cannot show it)."""
    if not knows(group, item):
        return {**blank(group), "kept": json.dumps(item)}
    row = {name: str(item.get(name) or "") for name in group.attributes}
    row["kept"] = ""
    return row


def rows_of(values: Mapping[str, Any]) -> Rows:
    """The stored attributes (as the API shows them) as every group's rows."""
    rows: Rows = {}
    for group in GROUPS:
        value = values.get(group.name)
        items = [value] if group.single and value is not None else value or []
        rows[group.name] = (
            [row_of(group, item) for item in items] if isinstance(items, list) else []
        )
    return rows


def rows_posted(form: Any) -> Rows:
    """Every group's numbered rows of a posted form, in their order."""
    rows: Rows = {}
    for group in GROUPS:
        count = str(form.get(f"{group.name}-count", "0"))
        total = min(int(count), group.most) if count.isascii() and count.isdigit() else 0
        found: list[Row] = []
        for i in range(total):
            prefix = f"{group.name}-{i}-"
            row = {name: str(form.get(prefix + name) or "") for name in group.attributes}
            row["kept"] = str(form.get(prefix + "kept") or "")
            found.append(row)
        rows[group.name] = found
    return rows


def item_of(group: Group, row: Row) -> Any:
    """The row as the API's rule or field (an empty input: null); a kept row as stored."""
    if row.get("kept"):
        try:
            return json.loads(row["kept"])
        except ValueError:
            return row["kept"]  # not JSON: the API says it is no rule
    return {name: row.get(name) or None for name in group.attributes}


def body_of(rows: Rows) -> dict[str, Any]:
    """The groups as the API's attributes: lists, and single fields (or null)."""
    body: dict[str, Any] = {}
    for group in GROUPS:
        items = [item_of(group, row) for row in rows.get(group.name, [])]
        body[group.name] = (items[0] if items else None) if group.single else items
    return body


def moved(rows: Rows, op: str) -> Rows:
    """The rows after an editing button: `add-<group>` or `remove-<group>-<i>`."""
    action, _, rest = op.partition("-")
    changed = {name: list(found) for name, found in rows.items()}
    if action == "add" and rest in BY_NAME:
        group = BY_NAME[rest]
        if len(changed.setdefault(rest, [])) < group.most:
            changed[rest].append(blank(group))
    elif action == "remove":
        name, _, index = rest.rpartition("-")
        if name in changed and index.isdigit() and int(index) < len(changed[name]):
            del changed[name][int(index)]
    return changed


# ---------------------------------------------------------------------- errors by input

_PATH: Final = re.compile(r"^([a-z_]+)(?:\.(\d+))?(?:\.([a-z_]+))?(?=[ .:]|$)")


def _row_error(group: Group, row: Row, index: int, attribute: str | None, said: str) -> Problem:
    """The row's input a problem belongs beside, and its words ("Rules to start an
    incident, rule 2: …")."""
    if attribute is None:  # a check of the whole item: its first word names the attribute
        first = re.split(r"[ :]", said, maxsplit=1)[0]
        attribute = first if first in group.attributes else group.target
    if row.get("kept") or attribute not in group.attributes:
        attribute = "kept" if row.get("kept") else group.target
    key = f"{group.name}-{index}-{attribute}"
    which = group.label if group.single else f"{group.label}, {group.noun} {index + 1}"
    return key, f"{which}: {said or 'is not valid'}"


def errors_of(problems: Iterable[Problem], rows: Rows, shown: Iterable[str]) -> dict[str, str]:
    """The domain's problems by the form's input ids: a rule's or field's beside its row's
    input, a group's beside the group, the form's other fields' beside them, the rest in
    the summary (`form`)."""
    names = set(shown)
    errors: dict[str, str] = {}
    for name, message in problems:
        text = message.strip()
        key: str | None = None
        found = _PATH.match(text)
        group = BY_NAME.get(str(name)) or BY_NAME.get(found.group(1) if found else "")
        if group is not None and found is not None and found.group(1) == group.name:
            said = text[found.end() :].strip(" :")
            index = int(found.group(2) or 0) if group.single or found.group(2) else None
            group_rows = rows.get(group.name, [])
            if index is not None and index < len(group_rows):
                key, text = _row_error(group, group_rows[index], index, found.group(3), said)
            else:
                key = group.name
        elif group is not None:
            key = group.name
        elif name in names:
            key = str(name)
        key = key or "form"
        errors[key] = f"{errors[key]} {text}" if key in errors else text
    return errors
