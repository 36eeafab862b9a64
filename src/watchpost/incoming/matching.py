"""Which rules a received request satisfies, and the values its fields take from it.

Pure functions over a `Received` request: no database, no HTTP framework.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

import orjson

MISSING: Final = object()


@dataclass(frozen=True)
class Received:
    """One request to an incoming webhook: its body (already bounded), headers (lower-case
    names) and query parameters (the first value of each)."""

    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    query: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    @cached_property
    def json(self) -> Any:
        """The body as JSON, or MISSING when it is not JSON."""
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return MISSING


def _as_text(value: Any) -> str | None:
    if value is MISSING or value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return orjson.dumps(value).decode()


def json_path(document: Any, path: str) -> Any:
    """The value at a dotted path (`incident.status`; list items by index: `alerts.0.id`),
    or MISSING."""
    value = document
    for key in path.split("."):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return MISSING
    return value


def clean(text: str) -> str:
    """Text a database column can hold: NUL (which PostgreSQL refuses) replaced."""
    return text.replace("\x00", "\ufffd")


def value_of(received: Received, target: str, name: str | None) -> str | None:
    """The text a rule or field looks at (NUL-free); None when the request has none (or for
    targets Watchpost does not read: xml, and the e-mail ones)."""
    value = _value_of(received, target, name)
    return None if value is None else clean(value)


def _value_of(received: Received, target: str, name: str | None) -> str | None:
    if target == "body":
        return received.text
    if target == "json":
        return _as_text(json_path(received.json, name or ""))
    if target == "header":
        return received.headers.get((name or "").lower())
    if target == "query_string":
        return received.query.get(name or "")
    return None


def holds(rule: Mapping[str, Any], received: Received) -> bool:
    """Whether the request satisfies one rule. A value the request lacks counts as ""; a
    target Watchpost does not read (xml) satisfies no rule."""
    if rule["rule_target"] not in ("body", "json", "header", "query_string"):
        return False
    value = value_of(received, rule["rule_target"], rule.get("target_field")) or ""
    content = rule.get("content") or ""
    kind = str(rule["match_type"])
    negated = kind.endswith("_not")
    kind = kind.removesuffix("_not")
    if kind == "contains":
        found = content in value
    elif kind == "equals":
        found = value == content
    else:
        found = re.search(content, value) is not None
    return found != negated


def satisfied(rule_type: str, rules: Sequence[Mapping[str, Any]], received: Received) -> bool:
    """Whether the request satisfies `all` or `any` of the rules; `unused`: no rule decides."""
    if rule_type == "all":
        return bool(rules) and all(holds(rule, received) for rule in rules)
    if rule_type == "any":
        return any(holds(rule, received) for rule in rules)
    return False


def _cut(value: str, spec: Mapping[str, Any]) -> str | None:
    kind = spec["match_type"]
    content = spec.get("content") or ""
    if kind == "match_everything":
        return value
    if kind == "match_before":
        head, found, _ = value.partition(content)
        return head if found else None
    if kind == "match_after":
        _, found, tail = value.partition(content)
        return tail if found else None
    if kind == "match_between":
        _, found, tail = value.partition(spec.get("content_after") or "")
        if not found:
            return None
        head, found, _ = tail.partition(spec.get("content_before") or "")
        return head if found else None
    match = re.search(content, value)
    if match is None:
        return None
    return match.group(1) if match.groups() else match.group(0)


def extract(spec: Mapping[str, Any] | None, received: Received) -> str | None:
    """A field's value in the request, or None (no such field, no value, no match)."""
    if spec is None:
        return None
    value = value_of(received, spec["field_target"], spec.get("target_field"))
    if value is None:
        return None
    found = _cut(value, spec)
    return found.strip() if found is not None and found.strip() else None


def field_key(spec: Mapping[str, Any]) -> str:
    """The metadata key a field's value is kept under."""
    return str(spec.get("name") or spec.get("special_type") or spec["field_target"])
