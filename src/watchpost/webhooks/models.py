from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String, Text, true
from sqlalchemy.orm import Mapped, mapped_column, relationship

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin, UTCDateTime


class CustomWebhookTemplate(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """How a webhook's HTTP request is built. Owned by exactly one webhook."""

    __tablename__ = "custom_webhook_templates"

    http_method: Mapped[str] = mapped_column(String(8))
    auth_username: Mapped[str | None] = mapped_column(String(255), default=None)
    auth_password_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    headers_template: Mapped[list[dict[str, str]]] = mapped_column(JSON, default=list)
    body_template: Mapped[str | None] = mapped_column(Text, default=None)


class OutgoingWebhook(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    __tablename__ = "outgoing_webhooks"
    # Delivery looks webhooks up by team and trigger.
    __table_args__ = (
        Index("ix_outgoing_webhooks_team_id_trigger_type", "team_id", "trigger_type"),
    )

    name: Mapped[str] = mapped_column(String(255))
    url: Mapped[str] = mapped_column(String(2048))
    trigger_type: Mapped[str] = mapped_column(String(32))
    on_incident_started: Mapped[bool] = mapped_column(Boolean, default=False)
    on_incident_acknowledged: Mapped[bool] = mapped_column(Boolean, default=False)
    on_incident_resolved: Mapped[bool] = mapped_column(Boolean, default=False)
    on_incident_reopened: Mapped[bool] = mapped_column(Boolean, default=False)
    on_incident_comment: Mapped[bool] = mapped_column(Boolean, default=False)
    # The hosted API's flag (incident_change only): stored and returned, no effect here.
    notify_alongside_primary_responder: Mapped[bool] = mapped_column(
        Boolean, default=True, server_default=true()
    )
    custom_webhook_template_id: Mapped[int | None] = mapped_column(
        IdType,
        ForeignKey("custom_webhook_templates.id", ondelete="SET NULL"),
        unique=True,
        default=None,
    )
    # Standard Webhooks signing keys (`whsec_…`), encrypted; after a rotation the previous key
    # also signs until previous_secret_expires_at.
    signing_secret_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    previous_secret_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    previous_secret_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    # Deliveries stop while disabled_at is set (410 Gone, or failing since failing_since for
    # longer than the settings allow); a change of the webhook enables it again.
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    disabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    disabled_reason: Mapped[str | None] = mapped_column(Text, default=None)
    # The template lives and dies with its webhook; loaded with it (async: no lazy loads).
    custom_webhook_template: Mapped[CustomWebhookTemplate | None] = relationship(
        lazy="selectin", cascade="all, delete-orphan", single_parent=True
    )
