"""Whom to alert and how, fields monitors and heartbeats share: the columns (a mapped mixin),
the request fields (a pydantic mixin, all optional) and the response attributes, which must
stay in step.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, Field
from sqlalchemy import Boolean, Integer
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import IdType
from watchpost.validation import Id


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


class NotificationFields(BaseModel):
    call: bool | None = None
    sms: bool | None = None
    email: bool | None = None
    push: bool | None = None
    team_wait: int | None = Field(
        default=None, ge=0, le=86_400, description="Seconds before the whole team is alerted."
    )
    policy_id: Id | None = Field(
        default=None, description="An escalation policy of the team; its incidents run it."
    )


NOTIFICATION_DEFAULTS: Final[dict[str, Any]] = {
    "call": False,
    "sms": False,
    "email": True,
    "push": False,
    "team_wait": None,
    "policy_id": None,
}


def notification_attributes(obj: NotificationColumns) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in NOTIFICATION_DEFAULTS}
