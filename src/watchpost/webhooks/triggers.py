"""Which fields each outgoing webhook trigger_type accepts, and the allowed template values.

This table is the single source of the rules: request validation, the response attributes,
the OpenAPI description and the tests all read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

TriggerType = Literal["incident_change", "on_call_change", "monitor_change"]
HttpMethod = Literal["get", "post", "put", "patch", "head"]

TRIGGER_TYPES: Final[tuple[str, ...]] = get_args(TriggerType)
HTTP_METHODS: Final[tuple[str, ...]] = get_args(HttpMethod)
DEFAULT_HTTP_METHOD: Final[HttpMethod] = "post"
# A request body on these methods has no defined meaning; a body_template with them is a 422.
METHODS_WITHOUT_BODY: Final[frozenset[str]] = frozenset({"get", "head"})
# Set by the delivery itself; a template that sets them would break the request.
RESERVED_HEADERS: Final[frozenset[str]] = frozenset(
    {"host", "content-length", "transfer-encoding", "connection"}
)

# Fields whose applicability depends on the trigger_type (booleans, default false).
INCIDENT_FLAGS: Final[tuple[str, ...]] = (
    "on_incident_started",
    "on_incident_acknowledged",
    "on_incident_resolved",
    "on_incident_reopened",
    "on_incident_comment",
)
TRIGGER_FIELDS: Final[tuple[str, ...]] = INCIDENT_FLAGS


@dataclass(frozen=True)
class TriggerRule:
    accepted: tuple[str, ...]
    fires_when: str


TRIGGER_RULES: Final[dict[str, TriggerRule]] = {
    "incident_change": TriggerRule(
        accepted=INCIDENT_FLAGS,
        fires_when="an incident starts, is acknowledged, resolved, reopened or commented on "
        "(each chosen by its on_incident_* flag)",
    ),
    "on_call_change": TriggerRule(accepted=(), fires_when="the on-call person changes"),
    "monitor_change": TriggerRule(
        accepted=(), fires_when="a monitor is created, updated, paused, unpaused or deleted"
    ),
}
assert set(TRIGGER_RULES) == set(TRIGGER_TYPES)
assert all(set(rule.accepted) <= set(TRIGGER_FIELDS) for rule in TRIGGER_RULES.values())


def trigger_problems(trigger_type: str, sent: set[str]) -> list[tuple[str | None, str]]:
    """(field, message) for every sent trigger-dependent field the trigger_type does not accept."""
    accepted = TRIGGER_RULES[trigger_type].accepted
    allowed = ", ".join(accepted) or "none of " + ", ".join(TRIGGER_FIELDS)
    return [
        (name, f"{name} does not apply to {trigger_type} webhooks (they accept: {allowed})")
        for name in TRIGGER_FIELDS
        if name in sent and name not in accepted
    ]


def rules_markdown() -> str:
    """The table as Markdown, for the OpenAPI description."""
    lines = ["| trigger_type | fires when | also accepts |", "|---|---|---|"]
    for trigger_type, rule in TRIGGER_RULES.items():
        accepted = ", ".join(rule.accepted) or "none"
        lines.append(f"| {trigger_type} | {rule.fires_when} | {accepted} |")
    return "\n".join(lines)
