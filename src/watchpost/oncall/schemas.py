"""Request and response shapes of on-call calendars (the hosted API's /api/v2/on-calls)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from watchpost import times
from watchpost.clock import isoformat_ms
from watchpost.errors import Problem
from watchpost.validation import ClosedModel, Email, Id, IdText, Name, OwnTeamName, ShortText

Time = Annotated[str, Field(max_length=64, description="RFC 3339, e.g. 2026-01-31T09:00:00Z.")]
Emails = Annotated[list[Email], Field(max_length=50)]
Interval = Literal["hour", "day", "week"]

MAX_BULK_EVENTS = 1000
"""Most events one `PUT …/events` takes."""


class CalendarCreate(ClosedModel):
    name: Name
    team_name: OwnTeamName = None
    default_calendar: bool | None = Field(
        default=None, description="Read-only: accepted when it says what the calendar is."
    )


class CalendarUpdate(ClosedModel):
    name: Name | None = None
    team_name: OwnTeamName = None
    default_calendar: bool | None = Field(
        default=None, description="Read-only: accepted when it says what the calendar is."
    )


CALENDAR_NOT_NULL = ("name",)


class EventCreate(ClosedModel):
    starts_at: Time = Field(description="Today 00:00 UTC or later.")
    ends_at: Time = Field(description="After starts_at.")
    users: Emails = Field(description="E-mail addresses of the team's members.")
    override: bool = Field(
        default=False, description="While it lasts, its people replace the regular events'."
    )


class EventUpdate(ClosedModel):
    starts_at: Time | None = None
    ends_at: Time | None = None
    users: Emails | None = None
    override: bool | None = None


EVENT_NOT_NULL = ("starts_at", "ends_at", "users", "override")


class ReplacedEvent(EventCreate):
    id: Id | IdText | None = Field(default=None, description="Ignored: the events are made anew.")


class EventsReplace(ClosedModel):
    events: Annotated[list[ReplacedEvent], Field(max_length=MAX_BULK_EVENTS)]


Day = Literal["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
DAYS: tuple[Day, ...] = (
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
)
TimeOfDay = Annotated[str, Field(pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9](:00)?$")]


class WorkingHour(ClosedModel):
    day: Day
    start_time: TimeOfDay = Field(default="00:00", description="HH:MM, local time.")
    end_time: TimeOfDay = Field(
        default="00:00", description="HH:MM; not after start_time: the window runs overnight."
    )


class RotationCreate(ClosedModel):
    users: Annotated[list[Email], Field(min_length=1, max_length=50)]
    rotation_length: Annotated[int, Field(ge=1, le=10_000)]
    rotation_interval: Interval | None = Field(default=None, description="hour, day or week.")
    rotation_period: Interval | None = Field(default=None, description="rotation_interval's alias.")
    start_rotations_at: Time
    end_rotations_at: Time
    team_name: OwnTeamName = None
    timezone: ShortText | None = Field(
        default=None,
        description="IANA time zone of the handovers and working hours (default: the "
        "rotation's before, else UTC).",
    )
    working_hours: Annotated[list[WorkingHour], Field(max_length=50)] | None = Field(
        default=None, description="When the rotation's people are on call (default: always)."
    )


class CalendarAttributes(BaseModel):
    name: str
    default_calendar: bool
    team_name: str


class EventAttributes(BaseModel):
    users: list[str]
    starts_at: str
    ends_at: str
    override: bool


class EventItem(BaseModel):
    id: str
    type: str
    attributes: EventAttributes


class EventDoc(EventAttributes):
    id: int
    data: EventItem


class EventsDoc(BaseModel):
    data: list[EventItem]
    events: list[dict[str, Any]]


class RotationDoc(BaseModel):
    timezone: str
    working_hours: list[dict[str, str]]
    users: list[str]
    rotation_length: int
    rotation_interval: str
    rotation_period: str
    start_rotations_at: str
    end_rotations_at: str


def parse_time(name: str, raw: str) -> tuple[datetime | None, list[Problem]]:
    """An RFC 3339 time as UTC (one without an offset is taken as UTC), within the years
    1970 to 2200."""
    try:
        return times.read_time(raw), []
    except times.OutOfRange as error:
        return None, [(name, f"{name} {error}")]
    except times.Unreadable:
        return None, [(name, f"{name} must be an RFC 3339 time (2026-01-31T09:00:00Z)")]


def rfc3339(moment: datetime) -> str:
    """A stored time as the API shows it: UTC, `Z`, milliseconds only when there are some."""
    moment = moment.astimezone(UTC)
    if moment.microsecond == 0:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return isoformat_ms(moment)
