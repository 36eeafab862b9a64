"""Request and response shapes of PagerDuty integrations."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from watchpost.validation import ClosedModel, Name, OwnTeamName

Severity = Literal["info", "warning", "error", "critical"]
RoutingKey = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_\-]+$")]


class IntegrationFields(ClosedModel):
    team_name: OwnTeamName = None
    notify_alongside_primary_responder: bool | None = Field(
        default=None,
        description="Told of incidents without an escalation policy (default true).",
    )


class IntegrationCreate(IntegrationFields):
    name: Name | None = Field(default=None, description="Default: PagerDuty.")
    key: RoutingKey = Field(description="The PagerDuty service's Events API v2 routing key.")
    severity: Severity


class IntegrationUpdate(IntegrationFields):
    name: Name | None = None
    key: RoutingKey | None = None
    severity: Severity | None = None


NOT_NULL_FIELDS = ("name", "key", "severity", "notify_alongside_primary_responder")


class IntegrationAttributes(ClosedModel):
    name: str
    key: str
    severity: Severity
    notify_alongside_primary_responder: bool
    team_name: str
    created_at: str
    updated_at: str


# The collection's convention (http/collection.py).
PREFIX = "/api/v2/pager-duty-webhooks"
ABOUT = (
    "A PagerDuty service, by its Events API v2 routing `key`: incidents trigger, acknowledge "
    "and resolve a PagerDuty alert (one per incident, `dedup_key` `watchpost-incident-<id>`) "
    "with the integration's `severity`. An integration with "
    "`notify_alongside_primary_responder` (default true) hears of every incident that has no "
    "escalation policy; an escalation step's `pagerduty_integration` member names one for "
    "incidents that do."
)
NOUN = "PagerDuty integration"
PLURAL = "PagerDuty integrations"
ATTRIBUTES = IntegrationAttributes
CREATE = IntegrationCreate
UPDATE = IntegrationUpdate
NOT_NULL = NOT_NULL_FIELDS
