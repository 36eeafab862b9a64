from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    FetchedValue,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin, UTCDateTime


class Incident(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """Something is (or was) wrong with a monitor, heartbeat, collector target or incoming
    webhook, or a
    person reported it (`manual`). Open while `resolved_at` is null.

    The object it belongs to may be deleted later; the incident stays, as history, with
    the reference set to null.
    """

    __tablename__ = "incidents"
    __table_args__ = (
        Index("ix_incidents_team_id_id", "team_id", "id"),
        Index("ix_incidents_monitor_id_resolved_at", "monitor_id", "resolved_at"),
        Index("ix_incidents_heartbeat_id_resolved_at", "heartbeat_id", "resolved_at"),
        Index("ix_incidents_collector_target_id_resolved_at", "collector_target_id", "resolved_at"),
        Index("ix_incidents_incoming_webhook_id_resolved_at", "incoming_webhook_id", "resolved_at"),
    )

    name: Mapped[str] = mapped_column(String(255))
    cause: Mapped[str] = mapped_column(Text)
    monitor_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("monitors.id", ondelete="SET NULL"), default=None
    )
    heartbeat_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("heartbeats.id", ondelete="SET NULL"), default=None
    )
    collector_target_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("collector_targets.id", ondelete="SET NULL"), default=None
    )
    incoming_webhook_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("incoming_webhooks.id", ondelete="SET NULL"), default=None
    )
    manual: Mapped[bool] = mapped_column(Boolean, default=False)
    # Whom to alert and how: sent with a report (the hosted API's fields), else copied from
    # the object at the start (its NotificationColumns).
    call: Mapped[bool] = mapped_column(Boolean, default=False)
    sms: Mapped[bool] = mapped_column(Boolean, default=False)
    email: Mapped[bool] = mapped_column(Boolean, default=True)
    push: Mapped[bool] = mapped_column(Boolean, default=False)
    critical_alert: Mapped[bool] = mapped_column(Boolean, default=False)
    team_wait: Mapped[int | None] = mapped_column(Integer, default=None)
    policy_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """The escalation policy the incident runs (delivery/escalation.py): a report's own, else
    its object's."""
    description: Mapped[str | None] = mapped_column(Text, default=None)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    check_details: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """A monitor's incident: what it checked when the incident opened (incidents/check_details.py)."""
    """Key → list of values, matched by status page metadata rules."""
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    acknowledged_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    acknowledged_by: Mapped[str | None] = mapped_column(String(320), default=None)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    resolved_by: Mapped[str | None] = mapped_column(String(320), default=None)
    change_stamp: Mapped[int] = mapped_column(
        BigInteger, server_default=text("0"), server_onupdate=FetchedValue(), deferred=True
    )
    """Set by the database on every insert and update (migration 0031's triggers; never
    written here): what status pages compare to reuse the incidents they read
    (status_pages/incident_reads.py). 0 for an incident unchanged since that migration."""

    @property
    def status(self) -> str:
        if self.resolved_at is not None:
            return "resolved"
        if self.acknowledged_at is not None:
            return "acknowledged"
        return "started"


class ChangeStamp(Base):
    """SQLite's source of incidents' change stamps (migration 0031's triggers): one row, the
    last stamp handed out, made by the first write of an incident from a random start.
    PostgreSQL stamps with the writing transaction's id and leaves this table empty."""

    __tablename__ = "change_stamps"

    table_name: Mapped[str] = mapped_column(String(63), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


class IncidentEvent(IdMixin, Base):
    """One line of an incident's timeline."""

    __tablename__ = "incident_events"

    incident_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("incidents.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    kind: Mapped[str] = mapped_column(String(32))
    """started, acknowledged, resolved, reopened, comment, check_failed, check_recovered."""
    text: Mapped[str] = mapped_column(Text)
    by: Mapped[str | None] = mapped_column(String(320), default=None)


class IncidentComment(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """A comment on an incident (the hosted API's `incident_comment`); its timeline entry
    and its `comment` event are made with it."""

    __tablename__ = "incident_comments"

    incident_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("incidents.id", ondelete="CASCADE"), index=True
    )
    content: Mapped[str] = mapped_column(Text)
    user_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """The team member who wrote it, when known (an escalation policy's instructions: none)."""
    user_email: Mapped[str | None] = mapped_column(String(320), default=None)


def referenced(field: str) -> Table:
    """The table an incident's reference column (monitor_id …) points at, read through its
    foreign key (so incidents need none of the referenced domains)."""
    (key,) = cast(Table, Incident.__table__).c[field].foreign_keys
    return key.column.table
