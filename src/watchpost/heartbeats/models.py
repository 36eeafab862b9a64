from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, PrimaryKeyConstraint, String, Text
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
    ping_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Pings recorded so far: numbers the ping log's rows (HeartbeatPing.seq)."""


class HeartbeatPing(Base):
    """One recorded ping, in a ring of PING_LOG_SIZE rows per heartbeat.

    Ping number `seq` lands in slot `seq % PING_LOG_SIZE`, replacing the ping that many
    before it (an upsert): the log is bounded by its key, with no prune to run and no row
    count to keep. The heartbeat's row, locked by the ping's UPDATE, orders concurrent
    pings of one heartbeat. Newest first is `seq` descending.
    """

    __tablename__ = "heartbeat_pings"
    __table_args__ = (PrimaryKeyConstraint("heartbeat_id", "slot"),)

    heartbeat_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("heartbeats.id", ondelete="CASCADE")
    )
    slot: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    kind: Mapped[str] = mapped_column(String(16))
    """success or fail (a /fail or a non-zero exit code)."""
    exit_code: Mapped[int | None] = mapped_column(Integer, default=None)
    body: Mapped[str | None] = mapped_column(Text, default=None)
    """The first 10 KB of the request body as text; null when it was empty."""
    body_truncated: Mapped[bool] = mapped_column(Boolean, default=False)
    address: Mapped[str | None] = mapped_column(String(64), default=None)
    user_agent: Mapped[str | None] = mapped_column(String(255), default=None)
