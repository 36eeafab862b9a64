"""The scheduling columns every checkable row carries (monitors, collector targets)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import UTCDateTime


class ScheduleColumns:
    """When the row is next due, and which worker holds it until when.

    A row is claimable when `next_check_at <= now` and it has no live lease. While leased,
    `next_check_at` keeps the due time the claim was made for, so a result is applied only
    if the row still carries the same owner and due time (see the check engine, engine/writer.py).
    """

    next_check_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(128), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    def schedule_now(self, now: datetime) -> None:
        """Due at once, and any running check's result void (its settings are outdated)."""
        self.next_check_at = now
        self.lease_owner = None
        self.lease_expires_at = None

    def due_now(self, now: datetime) -> None:
        """Checked at the engine's next claim (a person asked: "check now"). A check running
        now keeps its lease and its result: the row is being checked already."""
        if self.lease_owner is not None and (
            self.lease_expires_at is None or self.lease_expires_at > now
        ):
            return
        self.next_check_at = now

    def unschedule(self) -> None:
        """Never picked (paused, disabled); a running check's result is void."""
        self.next_check_at = None
        self.lease_owner = None
        self.lease_expires_at = None
