"""The maintenance window monitors and heartbeats share: its columns (a mapped mixin), its
request fields (a pydantic mixin, all optional) and response attributes, which must stay in
step, and the arithmetic of when an object is in maintenance.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any, Final, Literal, Protocol
from zoneinfo import ZoneInfo

from pydantic import AfterValidator, BaseModel, Field
from sqlalchemy import JSON, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost import times
from watchpost.db.rows import Derived, derived, stored
from watchpost.timezones import ZoneName, zone_of

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: Final[tuple[str, ...]] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DEFAULT_TIMEZONE = "UTC"


def check_clock_time(value: str) -> str:
    """ "HH:MM:SS" (or "HH:MM"), normalised to "HH:MM:SS"."""
    try:
        parsed = times.read_time_of_day(value)
    except times.Unreadable:
        raise ValueError('must be a time of day written "HH:MM:SS"') from None
    if parsed.tzinfo is not None or parsed.microsecond:
        raise ValueError('must be a time of day written "HH:MM:SS"')
    return parsed.strftime("%H:%M:%S")


ClockTime = Annotated[str, AfterValidator(check_clock_time)]
TimeZone = ZoneName
"""An IANA or a Rails zone name, kept as sent (timezones.py reads it)."""


MAINTENANCE_COLUMNS: Final = (
    "maintenance_from",
    "maintenance_to",
    "maintenance_timezone",
    "maintenance_days",
)
"""The columns of a maintenance window (MaintenanceColumns)."""


class MaintenanceColumns:
    """A daily maintenance window: no checks, no incidents, time counted as maintenance."""

    maintenance_from: Mapped[str | None] = mapped_column(String(8), default=None)
    maintenance_to: Mapped[str | None] = mapped_column(String(8), default=None)
    maintenance_timezone: Mapped[str] = mapped_column(String(64), default=DEFAULT_TIMEZONE)
    maintenance_days: Mapped[list[str]] = mapped_column(JSON, default=list)


def check_no_repeats(days: list[str]) -> list[str]:
    if len(set(days)) != len(days):
        raise ValueError("must not repeat a day")
    return days


# At most the seven days, each once: a list of any length would be stored and read at every
# check.
MaintenanceDays = Annotated[
    list[Weekday], Field(max_length=len(WEEKDAYS)), AfterValidator(check_no_repeats)
]


class MaintenanceFields(BaseModel):
    maintenance_from: ClockTime | None = Field(default=None, description='Start, "HH:MM:SS".')
    maintenance_to: ClockTime | None = Field(default=None, description='End, "HH:MM:SS".')
    maintenance_timezone: TimeZone | None = Field(
        default=None,
        description="An IANA zone name (Europe/Berlin) or a Rails one (Berlin); kept as sent.",
    )
    maintenance_days: MaintenanceDays | None = Field(
        default=None, description="mon … sun, each at most once."
    )


def maintenance_problems(values: dict[str, Any]) -> list[tuple[str | None, str]]:
    """A window needs both ends; one end alone is a mistake worth a 422."""
    has_from = values.get("maintenance_from") is not None
    has_to = values.get("maintenance_to") is not None
    if has_from != has_to:
        missing = "maintenance_to" if has_from else "maintenance_from"
        return [(missing, f"{missing} is required when a maintenance window is set")]
    return []


def weekdays_in_order(days: list[str] | None) -> list[str]:
    """The maintenance days as the API writes them: in week order, Monday first."""
    return [day for day in WEEKDAYS if day in days] if days else []


MAINTENANCE_ATTRIBUTES: Final[dict[str, str | Derived]] = {
    **stored("maintenance_from", "maintenance_to", "maintenance_timezone"),
    "maintenance_days": derived(weekdays_in_order, "maintenance_days"),
}
"""The window as monitors and heartbeats show it (db.rows.ResourceAttributes)."""


# ------------------------------------------------------------------ maintenance windows
#
# A window is wall-clock time in its zone: from `maintenance_from` on each listed day
# (empty list = every day) until the next `maintenance_to`; when to <= from it ends the
# next day (from == to is a whole day). It belongs to the day it starts on. Intervals are
# half-open [start, end). Across DST changes the window follows local time:
# - a local time that does not exist (spring forward) means the instant the clocks jump
#   over it, so a window wholly inside the skipped hour does not happen that night;
# - a local time that occurs twice (fall back) starts a window at its first occurrence
#   and ends one at its second, so the window covers every reading of its span once.

_MAX_CHAIN: Final = 8
"""maintenance_end follows back-to-back occurrences for at most this many days."""


class MaintenanceWindow(Protocol):
    """Anything with the maintenance columns (monitors, heartbeats)."""

    @property
    def maintenance_from(self) -> str | None: ...
    @property
    def maintenance_to(self) -> str | None: ...
    @property
    def maintenance_timezone(self) -> str | None: ...
    @property
    def maintenance_days(self) -> list[str] | None: ...


def in_maintenance(window: MaintenanceWindow, at: datetime) -> bool:
    """Whether `at` (aware) falls inside the window."""
    return any(start <= at < end for start, end in _around(window, at, at))


def maintenance_end(window: MaintenanceWindow, at: datetime) -> datetime | None:
    """When the window `at` lies in ends (back-to-back occurrences merged); None outside."""
    for start, end in _around(window, at, at + timedelta(days=_MAX_CHAIN)):
        if start <= at < end:
            return end
    return None


def maintenance_overlap(window: MaintenanceWindow, start: datetime, end: datetime) -> timedelta:
    """Time between `start` and `end` spent inside the window."""
    total = timedelta(0)
    for low, high in maintenance_intervals(window, start, end):
        total += high - low
    return total


def maintenance_intervals(
    window: MaintenanceWindow, start: datetime, end: datetime
) -> list[tuple[datetime, datetime]]:
    """The window's merged UTC intervals, clipped to [start, end)."""
    return [
        (max(low, start), min(high, end))
        for low, high in _around(window, start, end)
        if low < end and high > start
    ]


def _around(
    window: MaintenanceWindow, start: datetime, end: datetime
) -> list[tuple[datetime, datetime]]:
    """Merged occurrences of every local day that can touch [start, end]."""
    if window.maintenance_from is None or window.maintenance_to is None:
        return []
    zone = zone_of(window.maintenance_timezone or DEFAULT_TIMEZONE) or ZoneInfo(DEFAULT_TIMEZONE)
    opens = time.fromisoformat(window.maintenance_from)
    closes = time.fromisoformat(window.maintenance_to)
    days = set(window.maintenance_days or WEEKDAYS)
    day = start.astimezone(zone).date() - timedelta(days=1)
    last = end.astimezone(zone).date() + timedelta(days=1)
    merged: list[tuple[datetime, datetime]] = []
    while day <= last:
        if WEEKDAYS[day.weekday()] in days:
            low = _instant(day, opens, zone, first=True)
            ends_on = day + timedelta(days=1) if closes <= opens else day
            high = _instant(ends_on, closes, zone, first=False)
            if low < high:
                if merged and low <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], high))
                else:
                    merged.append((low, high))
        day += timedelta(days=1)
    return merged


def _instant(day: date, clock: time, zone: ZoneInfo, *, first: bool) -> datetime:
    """The UTC instant of a wall-clock reading (see the DST rules above)."""
    naive = datetime.combine(day, clock)
    early = naive.replace(tzinfo=zone, fold=0)
    late = naive.replace(tzinfo=zone, fold=1)
    if early.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
        # Skipped: fold=1 reads it with the offset after the jump, an instant before it.
        return _jump(late.astimezone(UTC), early.astimezone(UTC), zone)
    return (early if first else late).astimezone(UTC)


def local_instant(wall: datetime, zone: ZoneInfo) -> datetime:
    """The UTC instant of a naive wall-clock reading in zone: a skipped reading is the
    instant the clocks jump, a repeated one its first occurrence."""
    return _instant(wall.date(), wall.time(), zone, first=True)


def _jump(before: datetime, after: datetime, zone: ZoneInfo) -> datetime:
    """The first instant in (before, after] with the later offset: when the clocks jump."""
    offset = after.astimezone(zone).utcoffset()
    low, high = before, after
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if middle <= low:
            break
        if middle.astimezone(zone).utcoffset() == offset:
            high = middle
        else:
            low = middle
    return high
