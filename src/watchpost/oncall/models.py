from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin, UTCDateTime


class OnCallCalendar(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """Who is on call when: its events, made one by one or by a rotation."""

    __tablename__ = "on_call_calendars"

    name: Mapped[str] = mapped_column(String(255))
    default_of_team_id: Mapped[int | None] = mapped_column(IdType, unique=True, default=None)
    """The team's id on its default calendar (one per team: the unique key makes creating it
    race-safe), null on the others."""
    rotation: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """The last rotation set (`POST …/rotation`), as the API shows it."""
    on_call_user_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    """Who was on call when last looked at (the `on_call_change` detection)."""
    next_check_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None, index=True)
    """When who is on call may change next: the next event boundary, or now after an edit."""


class OnCallEvent(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """Some people on call from starts_at until ends_at; an override's people replace the
    regular events' people while it lasts."""

    __tablename__ = "on_call_events"
    __table_args__ = (Index("ix_on_call_events_calendar_id_ends_at", "calendar_id", "ends_at"),)

    calendar_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("on_call_calendars.id", ondelete="CASCADE")
    )
    users: Mapped[list[str]] = mapped_column(JSON, default=list)
    """E-mail addresses of team members."""
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime())
    override: Mapped[bool] = mapped_column(Boolean, default=False)
