"""Raw results (bounded), hourly/daily rollups and each subject's last observation.

A subject is a monitor, heartbeat or collector target, named by (subject_type, subject_id)
without a foreign key, so one set of tables serves all three; `forget` removes a deleted
subject's rows. team_id cascades with the team.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, UTCDateTime


class CheckResult(IdMixin, TeamOwnedMixin, Base):
    """One raw observation, kept for a bounded recent window (history.service.prune)."""

    __tablename__ = "check_results"
    __table_args__ = (
        Index("ix_check_results_subject_at", "subject_type", "subject_id", "at"),
        Index("ix_check_results_at", "at"),
    )

    subject_type: Mapped[str] = mapped_column(String(20))
    subject_id: Mapped[int] = mapped_column(IdType)
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    state: Mapped[str] = mapped_column(String(12))
    latency_ms: Mapped[float | None] = mapped_column(Float, default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    location_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """Where the check ran (locations); None: the server's own engine."""


class CheckRollup(TeamOwnedMixin, Base):
    """Seconds spent in each state and check statistics of one UTC hour or day.

    Durations belong to the bucket the time fell in (spans are split at boundaries);
    checks, failures and latency belong to the bucket of the observation's own time.
    """

    __tablename__ = "check_rollups"
    __table_args__ = (
        Index("ix_check_rollups_granularity_period_start", "granularity", "period_start"),
    )

    subject_type: Mapped[str] = mapped_column(String(20), primary_key=True)
    subject_id: Mapped[int] = mapped_column(IdType, primary_key=True)
    granularity: Mapped[str] = mapped_column(String(4), primary_key=True)
    """"hour" or "day"."""
    period_start: Mapped[datetime] = mapped_column(UTCDateTime(), primary_key=True)
    up_s: Mapped[float] = mapped_column(Float, default=0.0)
    down_s: Mapped[float] = mapped_column(Float, default=0.0)
    maintenance_s: Mapped[float] = mapped_column(Float, default=0.0)
    checks: Mapped[int] = mapped_column(Integer, default=0)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    latency_sum: Mapped[float] = mapped_column(Float, default=0.0)
    latency_count: Mapped[int] = mapped_column(Integer, default=0)
    latency_min: Mapped[float | None] = mapped_column(Float, default=None)
    latency_max: Mapped[float | None] = mapped_column(Float, default=None)


class LastObservation(TeamOwnedMixin, Base):
    """A subject's latest observation: the state its next span is attributed to."""

    __tablename__ = "check_last_observations"

    subject_type: Mapped[str] = mapped_column(String(20), primary_key=True)
    subject_id: Mapped[int] = mapped_column(IdType, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    state: Mapped[str] = mapped_column(String(12))
    valid_for_s: Mapped[float] = mapped_column(Float)
    latency_ms: Mapped[float | None] = mapped_column(Float, default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)
