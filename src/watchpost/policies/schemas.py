"""Request and response shapes of escalation policies (the hosted API's /api/v3/policies)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from watchpost.timezones import ZoneName
from watchpost.validation import ClosedModel, Email, Id, Name, OwnTeamName, ShortText

StepType = Literal[
    "escalation", "time_branching", "metadata_branching", "instructions", "resolve_remove"
]
MemberType = Literal[
    "current_on_call",
    "entire_team",
    "all_slack_integrations",
    "all_microsoft_teams_integrations",
    "all_zapier_integrations",
    "all_webhook_integrations",
    "all_splunk_on_call_integrations",
    "all_notification_channels",
    "incident_metadata",
    "user",
    "webhook",
    "notification_channel",
    "slack_integration",
    "microsoft_teams_integration",
    "zapier_webhook",
    "pagerduty_integration",
    "policy",
]
Day = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
Clock = Annotated[str, Field(pattern=r"^(2[0-3]|[01][0-9]):[0-5][0-9]$")]
Seconds = Annotated[int, Field(ge=0, le=30 * 86_400)]


class StepMember(ClosedModel):
    type: MemberType
    id: Id | None = Field(
        default=None,
        description="The user, webhook, notification channel, on-call calendar or policy.",
    )
    email: Email | None = Field(default=None, description="A user of the team, instead of `id`.")
    metadata_key: ShortText | None = None
    team_id: Id | None = None


class MetadataValue(ClosedModel):
    type: ShortText = "String"
    value: Annotated[str, Field(max_length=1024)] | None = None
    item_id: Id | None = None
    name: ShortText | None = None
    email: ShortText | None = None


class PolicyStep(ClosedModel):
    type: StepType
    wait_before: Seconds | None = Field(default=None, description="Seconds after the step before.")
    wait_until_time: Clock | None = None
    wait_until_timezone: ZoneName | None = None
    urgency_id: Id | None = Field(
        default=None,
        description="An urgency of the team: the ways an `escalation` step tells people.",
    )
    step_members: Annotated[list[StepMember], Field(max_length=50)] | None = None
    timezone: ZoneName | None = None
    days: Annotated[list[Day], Field(max_length=7)] | None = None
    time_from: Clock | None = None
    time_to: Clock | None = None
    metadata_key: ShortText | None = None
    metadata_values: Annotated[list[MetadataValue], Field(max_length=100)] | None = None
    action_type: (
        Literal["escalate_to_policy", "resolve_incident", "remove_incident", "do_not_escalate"]
        | None
    ) = None
    policy_id: Id | None = None
    policy_metadata_key: ShortText | None = None
    instructions_comment: Annotated[str, Field(max_length=10_000)] | None = None
    instructions_reminder_enabled: bool | None = None
    instructions_reminder_interval_hours: Annotated[int, Field(ge=1, le=8760)] | None = None


class PolicyFields(ClosedModel):
    team_name: OwnTeamName = None
    repeat_count: Annotated[int, Field(ge=0, le=100)] | None = None
    repeat_delay: Seconds | None = None
    policy_group_id: Id | None = Field(
        default=None, description="A policy group of the team (/api/v2/policy-groups), or null."
    )
    fallback_policy_id: Id | None = Field(default=None, description="Stored.")
    steps: Annotated[list[PolicyStep], Field(max_length=50)] | None = None


class PolicyCreate(PolicyFields):
    name: Name


class PolicyUpdate(PolicyFields):
    name: Name | None = None


POLICY_NOT_NULL = ("name", "repeat_count", "repeat_delay")
# `steps: null` is no steps (the Terraform provider sends null for an empty list).


class PolicyAttributes(ClosedModel):
    name: str
    repeat_count: int
    repeat_delay: int
    incident_token: str
    policy_group_id: int | None
    fallback_policy_id: int | None
    team_name: str
    steps: list[dict[str, Any]]


def stored_steps(steps: list[PolicyStep]) -> list[dict[str, Any]]:
    """Steps as kept and shown: the fields sent, nothing null."""
    return [step.model_dump(exclude_none=True) for step in steps]


# The collection's convention (http/collection.py).
PREFIX = "/api/v3/policies"
ABOUT = (
    "Steps run in order for an incident that names the policy (its monitor's or heartbeat's "
    "`policy_id`, or a report's) until it is acknowledged or resolved: an `escalation` step "
    "tells its `step_members` (`entire_team`, a `user` by id or email, a `webhook`, "
    "`all_webhook_integrations`, a `notification_channel`, `all_notification_channels`, "
    "`current_on_call`: whoever is on call in a calendar, the default one if `id` is null; "
    "`incident_metadata`; `policy`: that policy too) `wait_before` seconds after the step "
    "before (people by e-mail, or by the ways of the step's `urgency_id`: e-mail, SMS, call); "
    "branching steps move the run to another policy when their rule matches, `instructions` "
    "comment on the incident, `resolve_remove` resolves or removes it; then the whole policy "
    "repeats "
    "`repeat_count` times after `repeat_delay`, then the `fallback_policy_id` runs. Whoever "
    "was told hears of the resolution. A `pagerduty_integration` member triggers that "
    "PagerDuty integration (an event to the Events API v2); the other per-integration "
    "members (Slack, Microsoft Teams, Zapier, Splunk On-Call) are stored and shown but tell "
    "nobody here. A PATCH with `steps` replaces them all."
)
NOUN = "escalation policy"
PLURAL = "escalation policies"
ATTRIBUTES = PolicyAttributes
CREATE = PolicyCreate
UPDATE = PolicyUpdate
NOT_NULL = POLICY_NOT_NULL
