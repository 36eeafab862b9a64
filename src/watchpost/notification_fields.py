"""Whom to alert and how, fields monitors and heartbeats share: the columns (a mapped mixin),
the request fields (a pydantic mixin, all optional) and the response attributes, which must
stay in step.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import AfterValidator, BaseModel, Field
from sqlalchemy import Boolean, Integer, false
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import IdType
from watchpost.db.rows import Derived, derived, stored
from watchpost.validation import Id, IdText, parse_id, reference_id


class NotificationColumns:
    """How the team is alerted when the object goes down."""

    call: Mapped[bool] = mapped_column(Boolean, default=False)
    sms: Mapped[bool] = mapped_column(Boolean, default=False)
    email: Mapped[bool] = mapped_column(Boolean, default=True)
    push: Mapped[bool] = mapped_column(Boolean, default=False)
    team_wait: Mapped[int | None] = mapped_column(Integer, default=None)
    policy_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """The escalation policy its incidents run (no foreign key: deleting a policy clears it
    here, policies/service.py)."""
    critical_alert: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Stored: a critical push notification; Watchpost sends no push notifications."""


def _policy_ref(value: int | str) -> int | None:
    """An escalation policy id as the hosted API's clients send it: a number, a string of
    digits (the Terraform provider), or "" for none."""
    if isinstance(value, int):
        return value
    if not value.strip():
        return None
    number = parse_id(value.strip())
    if number is None:
        raise ValueError("must be the id of an escalation policy: a number or a string of digits")
    return number


PolicyRef = Annotated[Id | IdText, AfterValidator(_policy_ref)]
"""A policy id sent as a number or as a string ("" clears it); shown as a string."""


def policy_ref_id(value: object) -> int | None:
    """A raw body value of a PolicyRef that may be looked up (see `reference_id`)."""
    if isinstance(value, str):
        return reference_id(parse_id(value.strip()))
    return reference_id(value)


def policy_ref_out(value: int | None) -> str | None:
    """A policy id as the API shows it in monitors and heartbeats: a string, as the hosted
    API's Terraform provider reads it."""
    return None if value is None else str(value)


def team_wait_field() -> Any:
    """The optional request field `team_wait` (a pydantic Field)."""
    return Field(
        default=None, ge=0, le=86_400, description="Seconds before the whole team is alerted."
    )


def policy_ref_field() -> Any:
    """The optional request field `policy_id`, a PolicyRef (a pydantic Field)."""
    return Field(
        default=None,
        description="An escalation policy of the team (its incidents run it): a number or a "
        'string of digits; "" or null for none. Shown as a string.',
    )


class NotificationFields(BaseModel):
    call: bool | None = None
    sms: bool | None = None
    email: bool | None = None
    push: bool | None = None
    team_wait: int | None = team_wait_field()
    policy_id: PolicyRef | None = policy_ref_field()
    critical_alert: bool | None = Field(default=None, description="Stored (default false).")


NOTIFICATION_DEFAULTS: Final[dict[str, Any]] = {
    "call": False,
    "sms": False,
    "email": True,
    "push": False,
    "team_wait": None,
    "policy_id": None,
    "critical_alert": False,
}


NOTIFICATION_ATTRIBUTES: Final[dict[str, str | Derived]] = {
    **stored("call", "sms", "email", "push", "team_wait"),
    "policy_id": derived(policy_ref_out, "policy_id"),
    "critical_alert": "critical_alert",
}
"""The notification settings as monitors and heartbeats show them (db.rows.ResourceAttributes)."""
