"""Locations, probe tokens and the checks each location runs.

- `Location`: a place checks run from, named by the operator. Exactly one is the server's own
  engine (`is_server`, seeded as `local`); the others are served by `watchpost probe` agents.
  `region` is one of the hosted API's four (us, eu, as, au): a monitor's `regions` select the
  locations in them. A `private` location checks only the monitors that name it; one with a
  `team_id` belongs to that team (only its monitors may name it). `last_seen_at` is the last
  time an agent of the location spoke; `offline_since` is set once it has been silent for
  `offline_after_s` (its checks are then not counted) and cleared when an agent speaks again.
- `ProbeToken`: what an agent signs in with; bound to one location and good for nothing else.
  Only its SHA-256 is stored, `prefix` identifies it to people (teams.models.TokenColumns).
- `LocationCheck`: a monitor as one location checks it: its schedule and lease (an agent
  location's row is claimed as a monitor row is by the engine; the server location's row is
  never scheduled, the monitor row itself is its schedule) and its latest result, from which
  the monitor's verdict is made (monitors/confirmation.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, UTCDateTime
from watchpost.db.schedule_columns import ScheduleColumns
from watchpost.teams.models import TokenColumns

SERVER_LOCATION: Final = "local"
"""The name the server's own location is seeded with (renamable)."""
DEFAULT_OFFLINE_AFTER_S: Final = 90


class Location(IdMixin, Base):
    __tablename__ = "locations"

    name: Mapped[str] = mapped_column(String(64), unique=True)
    region: Mapped[str] = mapped_column(String(2))
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    team_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="CASCADE"), index=True, default=None
    )
    is_server: Mapped[bool] = mapped_column(Boolean, default=False)
    offline_after_s: Mapped[int] = mapped_column(Integer, default=DEFAULT_OFFLINE_AFTER_S)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    offline_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    last_agent: Mapped[str | None] = mapped_column(String(255), default=None)
    """What the agent that spoke last said it is (host name and version)."""


class ProbeToken(IdMixin, TokenColumns, Base):
    __tablename__ = "probe_tokens"

    location_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("locations.id", ondelete="CASCADE"), index=True
    )
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class LocationCheck(IdMixin, TeamOwnedMixin, ScheduleColumns, Base):
    __tablename__ = "location_checks"
    __table_args__ = (
        UniqueConstraint("monitor_id", "location_id"),
        Index("ix_location_checks_location_id_next_check_at", "location_id", "next_check_at"),
    )

    location_id: Mapped[int] = mapped_column(IdType, ForeignKey("locations.id", ondelete="CASCADE"))
    monitor_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("monitors.id", ondelete="CASCADE"), index=True
    )
    last_checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    last_ok: Mapped[bool | None] = mapped_column(Boolean, default=None)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)
    last_latency_ms: Mapped[float | None] = mapped_column(Float, default=None)
