from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin, UTCDateTime
from watchpost.plain_groups import PlainGroupColumns


class Policy(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """Steps run in order for an incident until it is acknowledged, then repeated."""

    __tablename__ = "policies"

    name: Mapped[str] = mapped_column(String(255))
    repeat_count: Mapped[int] = mapped_column(Integer, default=0)
    repeat_delay: Mapped[int] = mapped_column(Integer, default=0)
    incident_token: Mapped[str] = mapped_column(String(64), unique=True)
    policy_group_id: Mapped[int | None] = mapped_column(IdType, default=None)
    fallback_policy_id: Mapped[int | None] = mapped_column(IdType, default=None)
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)


class PolicyGroup(IdMixin, TeamOwnedMixin, TimestampMixin, PlainGroupColumns, Base):
    """Escalation policies shown together; nothing else."""

    __tablename__ = "policy_groups"


class PolicyRun(IdMixin, TeamOwnedMixin, Base):
    """A policy running for one incident: the next step, and when it is due."""

    __tablename__ = "policy_runs"

    incident_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("incidents.id", ondelete="CASCADE"), index=True
    )
    policy_id: Mapped[int] = mapped_column(IdType, ForeignKey("policies.id", ondelete="CASCADE"))
    event_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("delivery_events.id", ondelete="CASCADE")
    )
    """The incident's `started` event: what the steps send."""
    step: Mapped[int] = mapped_column(Integer, default=0)
    round: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None, index=True)
    """When the next step is due; null once the run is over (acknowledged, resolved, done)."""
    hops: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """How many times the run moved to another policy (a branch, a fallback): bounded, so
    policies that name each other cannot run forever."""
    told: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    """Whom the steps told: told again when the incident is resolved."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
