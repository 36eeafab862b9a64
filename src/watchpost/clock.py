"""The one source of time. Production reads the system clock; tests move a FrozenClock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FrozenClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | float) -> datetime:
        self._now += delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when


def isoformat_ms(value: datetime) -> str:
    """ISO 8601 UTC with milliseconds, as the API writes every timestamp."""
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    # Four-digit years always (ISO 8601), as the database writes them (db.base.iso_ms);
    # milliseconds cut, not rounded.
    return value.isoformat(timespec="milliseconds")[:23] + "Z"


def optional_isoformat_ms(value: datetime | None) -> str | None:
    """isoformat_ms, with None for a time that has not happened (yet)."""
    return isoformat_ms(value) if value is not None else None
