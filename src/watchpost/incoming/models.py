from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, TeamOwnedMixin, TimestampMixin
from watchpost.notification_fields import NotificationColumns


class IntegrationColumns(NotificationColumns):
    """What incoming webhooks and e-mail integrations share: the hosted API's alert settings,
    rules and fields, stored as sent (lists of objects, or one object or null)."""

    name: Mapped[str] = mapped_column(String(255))
    recovery_period: Mapped[int] = mapped_column(Integer, default=0)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    started_rule_type: Mapped[str] = mapped_column(String(16))
    acknowledged_rule_type: Mapped[str] = mapped_column(String(16))
    resolved_rule_type: Mapped[str] = mapped_column(String(16))
    started_rules: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    acknowledged_rules: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    resolved_rules: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    cause_field: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    title_field: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    started_alert_id_field: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    acknowledged_alert_id_field: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    resolved_alert_id_field: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    other_started_fields: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    other_acknowledged_fields: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    other_resolved_fields: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)


class IncomingWebhook(IdMixin, TeamOwnedMixin, TimestampMixin, IntegrationColumns, Base):
    """A public URL (/api/v1/incoming-webhook/{token}) whose requests start, acknowledge and
    resolve one incident at a time, by the rules below (incoming/matching.py).

    - `token`: random, URL-safe, unique; part of the public URL, so stored in plain text.
    - rules and fields: the hosted API's shapes, stored as sent (lists of objects, or one
      object or null for the single fields).
    - `sample_*`: the last request received (bounded; credentials left out), shown back.
    """

    __tablename__ = "incoming_webhooks"

    token: Mapped[str] = mapped_column(String(64), unique=True)
    sample_query_string: Mapped[str | None] = mapped_column(Text, default=None)
    sample_headers: Mapped[str | None] = mapped_column(Text, default=None)
    sample_body: Mapped[str | None] = mapped_column(Text, default=None)


class EmailIntegration(IdMixin, TeamOwnedMixin, TimestampMixin, IntegrationColumns, Base):
    """The hosted API's e-mail integration: stored and shown back. Watchpost receives no
    e-mail, so its rules never run and it has no address."""

    __tablename__ = "email_integrations"


def live_state(webhook: Any, _now: datetime) -> str | None:
    """What a status page shows an incoming webhook as now: it has no check history, so it
    is observed once it has received a request (its samples are set), while not paused, and
    its incidents alone say when it was down."""
    return None if webhook.paused or webhook.sample_body is None else "up"
