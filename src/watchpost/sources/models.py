from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin


class SourceGroup(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    __tablename__ = "source_groups"
    __table_args__ = (UniqueConstraint("team_id", "name"),)

    name: Mapped[str] = mapped_column(String(255))
    sort_index: Mapped[int] = mapped_column(Integer, default=0)


class Source(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """Where a team sends logs and metrics. The token is kept hashed (for ingestion
    lookups) and encrypted (so the API can show it again)."""

    __tablename__ = "sources"
    # Lists page through a team's (or a group's) sources in id order: these indexes give
    # that order directly instead of sorting all the team's rows for each page, and replace
    # the single-column indexes (which a planner with stale statistics would pick instead).
    __table_args__ = (
        Index("ix_sources_team_id_id", "team_id", "id"),
        Index("ix_sources_source_group_id_id", "source_group_id", "id"),
    )

    team_id: Mapped[int] = mapped_column(IdType, ForeignKey("teams.id", ondelete="CASCADE"))

    name: Mapped[str] = mapped_column(String(255))
    platform: Mapped[str] = mapped_column(String(64))
    source_group_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("source_groups.id", ondelete="SET NULL"), default=None
    )
    table_name: Mapped[str] = mapped_column(String(63), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    token_encrypted: Mapped[str] = mapped_column(Text)
    ingesting_paused: Mapped[bool] = mapped_column(Boolean, default=False)
    logs_retention: Mapped[int] = mapped_column(Integer)
    metrics_retention: Mapped[int] = mapped_column(Integer)
    live_tail_pattern: Mapped[str] = mapped_column(Text)
    # The hosted API's attributes kept without effect (sources/hosted.py); null: none sent.
    settings: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), default=None)


class SourceQuotaUsage(Base):
    """Events a source sent on a UTC day, as counted against its daily quota by every process
    (ingestion/quotas.py)."""

    __tablename__ = "source_quota_usage"

    source_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("sources.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The day's ordinal (proleptic Gregorian: Python's date.toordinal), UTC."""
    events: Mapped[int] = mapped_column(BigInteger)
