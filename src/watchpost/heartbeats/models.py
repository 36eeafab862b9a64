from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin, UTCDateTime
from watchpost.maintenance_windows import MaintenanceColumns
from watchpost.notification_fields import NotificationColumns


class HeartbeatGroup(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """A folder of heartbeats; pausing it pauses the heartbeats it holds at that moment."""

    __tablename__ = "heartbeat_groups"

    name: Mapped[str] = mapped_column(String(255))
    sort_index: Mapped[int] = mapped_column(Integer, default=0)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)


class Heartbeat(
    IdMixin, TeamOwnedMixin, TimestampMixin, MaintenanceColumns, NotificationColumns, Base
):
    """A job that pings /api/v1/heartbeat/{token}; it is down when a ping is overdue.

    Engine-facing state:
    - `token`: random, URL-safe, unique; the ping endpoint finds the heartbeat by it (one
      indexed lookup). Part of the public ping URL, so stored in plain text.
    - `status`: pending (never pinged, or unpaused without a ping ever), paused, up, down.
    - `last_ping_at`: when the last ping arrived; null until the first one.
    - `next_due_at`: when the heartbeat goes down if no ping arrives (last ping, or the
      unpause after one, + period + grace); null while pending or paused. Indexed so the
      engine can find overdue heartbeats cheaply. A change of period or grace moves it by
      the difference, keeping its starting point.
    """

    __tablename__ = "heartbeats"

    name: Mapped[str] = mapped_column(String(255))
    token: Mapped[str] = mapped_column(String(64), unique=True)
    period: Mapped[int] = mapped_column(Integer)
    grace: Mapped[int] = mapped_column(Integer)
    heartbeat_group_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("heartbeat_groups.id", ondelete="SET NULL"), index=True, default=None
    )
    sort_index: Mapped[int] = mapped_column(Integer, default=0)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    last_ping_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    next_due_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None, index=True)
    server_timezone: Mapped[str | None] = mapped_column(String(64), default=None)
    """The zone whose wall-clock time the period follows (checking.deadline_after)."""
