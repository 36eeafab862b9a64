"""Request and response shapes of incoming webhooks (the hosted API's attributes)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field, model_validator

from watchpost.incoming import patterns
from watchpost.notification_fields import PolicyRef, policy_ref_field, team_wait_field
from watchpost.validation import ClosedModel, Name, OwnTeamName, ShortText

RuleType = Literal["unused", "all", "any"]
Target = Literal["from_email", "subject", "body", "query_string", "header", "json", "xml"]
RuleMatch = Literal[
    "contains", "contains_not", "matches_regex", "matches_regex_not", "equals", "equals_not"
]
FieldMatch = Literal[
    "match_before", "match_after", "match_between", "match_regex", "match_everything"
]
Text = Annotated[str, Field(max_length=1000)]

WEBHOOK_TARGETS: Final = frozenset({"body", "query_string", "header", "json", "xml"})
"""What an incoming webhook's rules and fields may look at (the others: a 422)."""
EMAIL_TARGETS: Final = frozenset({"from_email", "subject", "body"})
"""What an e-mail integration's rules and fields may look at."""
NAMED_TARGETS: Final = frozenset({"query_string", "header", "json", "xml"})
"""Targets that need a target_field (the parameter, header, JSON path or selector)."""
RULES_MAX: Final = 50
"""Rules (and extra fields) one list holds at most."""


def _regex_problem(pattern: str | None) -> None:
    found = patterns.problem(pattern or "")
    if found is not None:
        raise ValueError(f"content must be a regular expression RE2 accepts: {found}")


def _target_problem(target: str, target_field: str | None, what: str) -> None:
    if target in NAMED_TARGETS and not target_field:
        raise ValueError(f"target_field is required when {what} is {target}")


class Rule(ClosedModel):
    """When a request satisfies it: its target's value (rule_target, target_field) compared
    with `content` by `match_type`."""

    rule_target: Target
    target_field: ShortText | None = None
    match_type: RuleMatch
    content: Text | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Rule:
        _target_problem(self.rule_target, self.target_field, "rule_target")
        if self.match_type.startswith("matches_regex"):
            _regex_problem(self.content)
        return self


class ExtractedField(ClosedModel):
    """A value taken from a request: its target's value, cut by `match_type`."""

    name: ShortText | None = None
    special_type: Annotated[str, Field(max_length=64)] | None = None
    field_target: Target
    target_field: ShortText | None = None
    match_type: FieldMatch
    content: Text | None = None
    content_before: Text | None = None
    content_after: Text | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ExtractedField:
        _target_problem(self.field_target, self.target_field, "field_target")
        if self.match_type in ("match_before", "match_after", "match_regex") and not self.content:
            raise ValueError(f"content is required when match_type is {self.match_type}")
        if self.match_type == "match_between" and not (self.content_before and self.content_after):
            raise ValueError("content_before and content_after are required for match_between")
        if self.match_type == "match_regex":
            _regex_problem(self.content)
        return self


Rules = Annotated[list[Rule], Field(max_length=RULES_MAX)]
Fields = Annotated[list[ExtractedField], Field(max_length=RULES_MAX)]

RULE_LISTS: Final = ("started_rules", "acknowledged_rules", "resolved_rules")
RULE_TYPES: Final = ("started_rule_type", "acknowledged_rule_type", "resolved_rule_type")
SINGLE_FIELDS: Final = (
    "cause_field",
    "title_field",
    "started_alert_id_field",
    "acknowledged_alert_id_field",
    "resolved_alert_id_field",
)
FIELD_LISTS: Final = ("other_started_fields", "other_acknowledged_fields", "other_resolved_fields")
SETTINGS: Final = ("name", "recovery_period", "paused", *RULE_TYPES)


class WebhookFields(ClosedModel):
    team_name: OwnTeamName = None
    call: bool | None = None
    sms: bool | None = None
    email: bool | None = None
    push: bool | None = None
    critical_alert: bool | None = Field(default=None, description="Stored (default false).")
    team_wait: int | None = team_wait_field()
    policy_id: PolicyRef | None = policy_ref_field()
    recovery_period: int | None = Field(
        default=None, ge=0, le=86_400, description="Seconds (default 0). Stored."
    )
    paused: bool | None = Field(default=None, description="A paused webhook ignores requests.")
    started_rules: Rules | None = None
    acknowledged_rules: Rules | None = None
    resolved_rules: Rules | None = None
    cause_field: ExtractedField | None = None
    title_field: ExtractedField | None = None
    started_alert_id_field: ExtractedField | None = None
    acknowledged_alert_id_field: ExtractedField | None = None
    resolved_alert_id_field: ExtractedField | None = None
    other_started_fields: Fields | None = None
    other_acknowledged_fields: Fields | None = None
    other_resolved_fields: Fields | None = None


class WebhookCreate(WebhookFields):
    name: Name | None = Field(default=None, description="Default: Incoming webhook.")
    # Not required, as in the hosted API's documentation (its Terraform provider always sends them).
    started_rule_type: RuleType = Field(default="unused", description="Default: unused.")
    acknowledged_rule_type: RuleType = Field(default="unused", description="Default: unused.")
    resolved_rule_type: RuleType = Field(default="unused", description="Default: unused.")


class WebhookUpdate(WebhookFields):
    name: Name | None = None
    started_rule_type: RuleType | None = None
    acknowledged_rule_type: RuleType | None = None
    resolved_rule_type: RuleType | None = None


NOT_NULL_FIELDS: Final = (
    "name",
    "call",
    "sms",
    "email",
    "push",
    "critical_alert",
    "recovery_period",
    "paused",
    *RULE_TYPES,
)


class IntegrationAttributes(ClosedModel):
    """What incoming webhooks and e-mail integrations show alike."""

    name: str
    policy_id: str | None
    call: bool
    sms: bool
    email: bool
    push: bool
    critical_alert: bool
    team_wait: int | None
    recovery_period: int
    paused: bool
    started_rule_type: RuleType
    acknowledged_rule_type: RuleType
    resolved_rule_type: RuleType
    started_rules: list[Rule]
    acknowledged_rules: list[Rule]
    resolved_rules: list[Rule]
    cause_field: ExtractedField | None
    title_field: ExtractedField | None
    started_alert_id_field: ExtractedField | None
    acknowledged_alert_id_field: ExtractedField | None
    resolved_alert_id_field: ExtractedField | None
    other_started_fields: list[ExtractedField]
    other_acknowledged_fields: list[ExtractedField]
    other_resolved_fields: list[ExtractedField]
    team_name: str
    created_at: str
    updated_at: str


class WebhookAttributes(IntegrationAttributes):
    url: str = Field(description="Where to send requests: the public URL with the token.")
    sample_query_string: str | None
    sample_headers: str | None
    sample_body: str | None


def stored(value: Any) -> Any:
    """A rule, a field or a list of them as stored: every attribute, null where not sent."""
    if value is None:
        return None
    if isinstance(value, list):
        return [item.model_dump() for item in value]
    return value.model_dump()


PREFIX: Final = "/api/v2/incoming-webhooks"
TYPE: Final = "incoming_webhook"
ABOUT: Final = (
    "A public URL (`url`, with a secret token; no API token) that starts, acknowledges and "
    "resolves an incident from the requests it receives. Each of `started_rule_type`, "
    "`acknowledged_rule_type` and `resolved_rule_type` is `unused` (the default), `all` (every "
    "rule of its list must hold) or `any` (one must); `all` and `any` need at least one rule. "
    "A rule "
    "compares a value of the request (`rule_target` body, json with a dotted `target_field` "
    "path, header, query_string; xml is stored but never satisfied) with `content` "
    "(`match_type` contains, equals, matches_regex (RE2 syntax) and their `_not`s). A request that "
    "satisfies the resolved rules resolves the open incident, else the acknowledged rules "
    "acknowledge it, else the started rules (or any request, when started_rule_type is "
    "`unused`) start one unless one is open. `title_field` and `cause_field` name the "
    "incident and say why; the alert id and other fields go to its metadata."
)
NOUN: Final = "incoming webhook"
PLURAL: Final = "incoming webhooks"
