"""Which rules a received request satisfies, and the values its fields take from it.

Pure functions over a `Received` request: no database, no HTTP framework. Regular
expressions run through patterns.py (RE2, bounded input); `judge` is the whole of a
request's matching, which the receiving side runs off the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

import orjson

from watchpost.incoming import patterns

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
    target Watchpost does not read (xml), or a pattern RE2 refuses (stored before patterns were
    checked), satisfies no rule, `_not` or not."""
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
        matched = patterns.matches(content, value)
        if matched is None:
            return False
        found = matched
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
    return patterns.found(content, value)


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


STAGES: Final = ("started", "acknowledged", "resolved")
JUDGED: Final = (
    *(f"{stage}_{name}" for stage in STAGES for name in ("rule_type", "rules", "alert_id_field")),
    *(f"other_{stage}_fields" for stage in STAGES),
    "title_field",
    "cause_field",
)
"""A webhook's settings `judge` reads."""


@dataclass(frozen=True)
class Verdict:
    """What a request makes of a webhook's rules and fields, for each stage (started,
    acknowledged, resolved): whether its rules hold (`unused` never does, except that every
    request may start an incident when the started rules are `unused`), its alert id
    field's key and value, its alert id and other fields' values by key; the title and
    cause."""

    holds: Mapping[str, bool]
    alert_ids: Mapping[str, tuple[str, str] | None]
    fields: Mapping[str, Mapping[str, str]]
    title: str | None
    cause: str | None


def judge(webhook: Mapping[str, Any], received: Received) -> Verdict:
    """Every rule and field of a webhook (its JUDGED settings) over one request."""
    alert_ids: dict[str, tuple[str, str] | None] = {}
    fields: dict[str, dict[str, str]] = {}
    for stage in STAGES:
        alert_id = webhook[f"{stage}_alert_id_field"]
        value = extract(alert_id, received)
        alert_ids[stage] = (
            None if alert_id is None or value is None else (field_key(alert_id), value)
        )
        fields[stage] = {}
        for spec in (alert_id, *(webhook[f"other_{stage}_fields"] or [])):
            value = extract(spec, received)
            if spec is not None and value is not None:
                fields[stage][field_key(spec)] = value
    return Verdict(
        holds={
            stage: (stage == "started" and webhook[f"{stage}_rule_type"] == "unused")
            or satisfied(webhook[f"{stage}_rule_type"], webhook[f"{stage}_rules"] or [], received)
            for stage in STAGES
        },
        alert_ids=alert_ids,
        fields=fields,
        title=extract(webhook["title_field"], received),
        cause=extract(webhook["cause_field"], received),
    )
