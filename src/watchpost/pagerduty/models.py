from __future__ import annotations

from sqlalchemy import Boolean, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, TeamOwnedMixin, TimestampMixin


class PagerDutyIntegration(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """A PagerDuty service's Events API v2 routing key, and the severity its alerts carry."""

    __tablename__ = "pager_duty_webhooks"

    name: Mapped[str] = mapped_column(String(255))
    key: Mapped[str] = mapped_column(String(128))
    """The routing key: shown back, as the hosted API does (its Terraform provider reads it
    back), so kept as sent, like a webhook's URL."""
    severity: Mapped[str] = mapped_column(String(16))
    notify_alongside_primary_responder: Mapped[bool] = mapped_column(Boolean, default=True)
    """Told of incidents that have no escalation policy (as their team's members are)."""
