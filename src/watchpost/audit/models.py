from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, UTCDateTime


class AuditEvent(IdMixin, Base):
    """One thing done in a team. The actor and the subject are copied as text too, so the
    entry still reads right after the person or the object is gone."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_team_id_id", "team_id", "id"),)

    team_id: Mapped[int] = mapped_column(IdType, ForeignKey("teams.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    actor_kind: Mapped[str] = mapped_column(String(16))  # person, token, cli, system
    actor_id: Mapped[int | None] = mapped_column(IdType, default=None)
    actor: Mapped[str] = mapped_column(String(320))  # an e-mail, a token's prefix
    action: Mapped[str] = mapped_column(String(64))  # e.g. monitor.paused, session.created
    subject_type: Mapped[str | None] = mapped_column(String(32), default=None)
    subject_id: Mapped[int | None] = mapped_column(IdType, default=None)
    subject: Mapped[str | None] = mapped_column(String(255), default=None)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    address: Mapped[str | None] = mapped_column(String(64), default=None)
