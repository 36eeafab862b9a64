"""Request and response shapes of urgencies (the hosted API's /api/v2/urgencies, called
severities in its Terraform provider)."""

from __future__ import annotations

from pydantic import Field

from watchpost.validation import ClosedModel, Id, Name, OwnTeamName

WAYS = ("sms", "call", "email", "push", "critical_alert")
"""The ways of telling people an urgency switches on or off."""
DEFAULTS = {"sms": False, "call": False, "email": True, "push": True, "critical_alert": False}
"""A way not sent on create (the Terraform provider's defaults)."""


class UrgencyFields(ClosedModel):
    team_name: OwnTeamName = None
    sms: bool | None = Field(default=None, description="SMS (WATCHPOST_SMS_URL); default false.")
    call: bool | None = Field(
        default=None, description="A phone call (WATCHPOST_CALL_URL); default false."
    )
    email: bool | None = Field(default=None, description="E-mail; default true.")
    push: bool | None = Field(default=None, description="Stored (no push service); default true.")
    critical_alert: bool | None = Field(
        default=None, description="Stored (no push service); default false."
    )
    urgency_group_id: Id | None = Field(
        default=None, description="An urgency group of the team, or null."
    )


class UrgencyCreate(UrgencyFields):
    name: Name


class UrgencyUpdate(UrgencyFields):
    name: Name | None = None


URGENCY_NOT_NULL = ("name", *WAYS)


class UrgencyAttributes(ClosedModel):
    name: str
    sms: bool
    call: bool
    email: bool
    push: bool
    critical_alert: bool
    urgency_group_id: int | None
    team_name: str


# The collection's convention (http/collection.py).
PREFIX = "/api/v2/urgencies"
ABOUT = (
    "An urgency (severity) says how an escalation step that names it (`urgency_id`) tells "
    "the people it names: by `email`, `sms` and `call` (through WATCHPOST_SMS_URL and "
    "WATCHPOST_CALL_URL). `push` and `critical_alert` are stored: there is no push service. "
    "Not sent on create: email and push true, the rest false. Deleting an urgency removes "
    "`urgency_id` from the steps that named it."
)
NOUN = "urgency"
PLURAL = "urgencies"
ATTRIBUTES = UrgencyAttributes
CREATE = UrgencyCreate
UPDATE = UrgencyUpdate
NOT_NULL = URGENCY_NOT_NULL
