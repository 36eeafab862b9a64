from __future__ import annotations

from sqlalchemy import Boolean, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin
from watchpost.plain_groups import PlainGroupColumns


class UrgencyGroup(IdMixin, TeamOwnedMixin, TimestampMixin, PlainGroupColumns, Base):
    """Urgencies shown together; nothing else."""

    __tablename__ = "urgency_groups"


class Urgency(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """How an escalation step that names it tells people: the ways switched on."""

    __tablename__ = "urgencies"

    name: Mapped[str] = mapped_column(String(255))
    sms: Mapped[bool] = mapped_column(Boolean, default=False)
    call: Mapped[bool] = mapped_column(Boolean, default=False)
    email: Mapped[bool] = mapped_column(Boolean, default=True)
    push: Mapped[bool] = mapped_column(Boolean, default=True)
    critical_alert: Mapped[bool] = mapped_column(Boolean, default=False)
    urgency_group_id: Mapped[int | None] = mapped_column(IdType, default=None)
