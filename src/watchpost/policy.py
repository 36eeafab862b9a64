"""Fields monitors and heartbeats share: the maintenance window and whom to alert, how.

Each comes as three parts that must stay in step: the columns (a mapped mixin), the request
fields (a pydantic mixin, all optional) and the response attributes.
"""

from __future__ import annotations

from datetime import time
from typing import Annotated, Any, Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import AfterValidator, BaseModel, Field
from sqlalchemy import JSON, Boolean, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: Final[tuple[str, ...]] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DEFAULT_TIMEZONE = "UTC"


def check_clock_time(value: str) -> str:
    """ "HH:MM:SS" (or "HH:MM"), normalised to "HH:MM:SS"."""
    try:
        parsed = time.fromisoformat(value.strip())
    except ValueError:
        raise ValueError('must be a time of day written "HH:MM:SS"') from None
    if parsed.tzinfo is not None or parsed.microsecond:
        raise ValueError('must be a time of day written "HH:MM:SS"')
    return parsed.strftime("%H:%M:%S")


def check_timezone(value: str) -> str:
    name = value.strip()
    if name not in _timezones():
        raise ValueError("must be an IANA time zone name such as Europe/Prague or UTC")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError("must be an IANA time zone name such as Europe/Prague or UTC") from None
    return name


_ZONES: set[str] | None = None


def _timezones() -> set[str]:
    global _ZONES
    if _ZONES is None:
        _ZONES = available_timezones() | {"UTC"}
    return _ZONES


ClockTime = Annotated[str, AfterValidator(check_clock_time)]
TimeZone = Annotated[str, Field(max_length=64), AfterValidator(check_timezone)]


class MaintenanceColumns:
    """A daily maintenance window: no checks, no incidents, time counted as maintenance."""

    maintenance_from: Mapped[str | None] = mapped_column(String(8), default=None)
    maintenance_to: Mapped[str | None] = mapped_column(String(8), default=None)
    maintenance_timezone: Mapped[str] = mapped_column(String(64), default=DEFAULT_TIMEZONE)
    maintenance_days: Mapped[list[str]] = mapped_column(JSON, default=list)


class MaintenanceFields(BaseModel):
    maintenance_from: ClockTime | None = Field(default=None, description='Start, "HH:MM:SS".')
    maintenance_to: ClockTime | None = Field(default=None, description='End, "HH:MM:SS".')
    maintenance_timezone: TimeZone | None = Field(default=None, description="IANA zone name.")
    maintenance_days: list[Weekday] | None = Field(default=None, description="mon … sun.")


def maintenance_problems(values: dict[str, Any]) -> list[tuple[str | None, str]]:
    """A window needs both ends; one end alone is a mistake worth a 422."""
    has_from = values.get("maintenance_from") is not None
    has_to = values.get("maintenance_to") is not None
    if has_from != has_to:
        missing = "maintenance_to" if has_from else "maintenance_from"
        return [(missing, f"{missing} is required when a maintenance window is set")]
    return []


def maintenance_attributes(obj: MaintenanceColumns) -> dict[str, Any]:
    return {
        "maintenance_from": obj.maintenance_from,
        "maintenance_to": obj.maintenance_to,
        "maintenance_timezone": obj.maintenance_timezone,
        "maintenance_days": [day for day in WEEKDAYS if day in (obj.maintenance_days or [])],
    }


class NotificationColumns:
    """How the team is alerted when the object goes down."""

    call: Mapped[bool] = mapped_column(Boolean, default=False)
    sms: Mapped[bool] = mapped_column(Boolean, default=False)
    email: Mapped[bool] = mapped_column(Boolean, default=True)
    push: Mapped[bool] = mapped_column(Boolean, default=False)
    team_wait: Mapped[int | None] = mapped_column(Integer, default=None)


class NotificationFields(BaseModel):
    call: bool | None = None
    sms: bool | None = None
    email: bool | None = None
    push: bool | None = None
    team_wait: int | None = Field(
        default=None, ge=0, le=86_400, description="Seconds before the whole team is alerted."
    )


NOTIFICATION_DEFAULTS: Final[dict[str, Any]] = {
    "call": False,
    "sms": False,
    "email": True,
    "push": False,
    "team_wait": None,
}


def notification_attributes(obj: NotificationColumns) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in NOTIFICATION_DEFAULTS}
