"""Request and response shapes of heartbeats, and their field rules."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from watchpost.maintenance_windows import (
    DEFAULT_TIMEZONE,
    MaintenanceFields,
    Weekday,
    maintenance_problems,
)
from watchpost.notification_fields import NOTIFICATION_DEFAULTS, NotificationFields
from watchpost.problems import accepted, checked
from watchpost.timezones import ZoneName
from watchpost.validation import ClosedModel, Id, Int32, Name, ShortText

M = TypeVar("M", bound=BaseModel)

# ------------------------------------------------------------------------------- rules

PERIOD_MIN: Final = 30
# A monthly cron job on a 31-day month is the longest schedule people ping from.
PERIOD_MAX: Final = 31 * 86_400
DEFAULT_PERIOD: Final = 86_400
GRACE_MAX: Final = PERIOD_MAX

HeartbeatStatus = Literal["pending", "paused", "up", "down"]


SERVER_TIMEZONE_MIN_PERIOD: Final = 3600
"""server_timezone applies to periods of an hour or more; shorter ones clear it (as the hosted
API does)."""


def default_grace(period: int) -> int:
    """Grace when none is given: 20% of the period, rounded down."""
    return period // 5


HEARTBEAT_DEFAULTS: Final[dict[str, Any]] = {
    "period": DEFAULT_PERIOD,
    "sort_index": 0,
    "paused": False,
    "heartbeat_group_id": None,
    "maintenance_from": None,
    "maintenance_to": None,
    "maintenance_timezone": DEFAULT_TIMEZONE,
    "maintenance_days": [],
    "server_timezone": None,
    **NOTIFICATION_DEFAULTS,
}
# null clears these; for the rest null is a 422 (create and update alike) ...
HEARTBEAT_NULLABLE: Final = frozenset(
    {
        "heartbeat_group_id",
        "maintenance_from",
        "maintenance_to",
        "team_wait",
        "policy_id",
        "server_timezone",
        "team_name",
    }
)
# ... except these, where null restores the default.
HEARTBEAT_NULL_RESETS: Final = frozenset({"maintenance_timezone", "maintenance_days"})
HEARTBEAT_READ_ONLY: Final = frozenset(
    {"url", "status", "last_ping_at", "paused_at", "created_at", "updated_at"}
)


Period = Annotated[int, Field(ge=PERIOD_MIN, le=PERIOD_MAX)]
Grace = Annotated[int, Field(ge=0, le=GRACE_MAX)]
SortIndex = Int32
GroupId = Id


def _blank_is_none(value: object) -> object:
    return None if isinstance(value, str) and not value.strip() else value


ServerTimezone = Annotated[ZoneName | None, BeforeValidator(_blank_is_none)]

# -------------------------------------------------------------------------- heartbeats


class HeartbeatFields(MaintenanceFields, NotificationFields):
    """Every writable heartbeat field; all optional (PATCH)."""

    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    period: Period | None = Field(
        default=None,
        description=(
            f"Seconds between pings, {PERIOD_MIN} to {PERIOD_MAX} (31 days); "
            f"default {DEFAULT_PERIOD} (a day)."
        ),
    )
    grace: Grace | None = Field(
        default=None,
        description=(
            "Seconds a ping may be late before the heartbeat goes down; "
            "when omitted on create, 20% of the period (rounded down)."
        ),
    )
    heartbeat_group_id: GroupId | None = Field(
        default=None, description="A heartbeat group of the team; null for none."
    )
    sort_index: SortIndex | None = Field(default=None, description="Position; default 0.")
    paused: bool | None = None
    server_timezone: ServerTimezone = Field(
        default=None,
        description=(
            "The zone (IANA or Rails name) whose wall-clock time the period follows, so a daily "
            'job stays due at the same local time across DST; "" or null for none. Periods '
            f"under {SERVER_TIMEZONE_MIN_PERIOD} s clear it."
        ),
    )
    team_name: ShortText | None = Field(default=None, description="Must name the API token's team.")


class HeartbeatCreate(HeartbeatFields):
    name: Name


class HeartbeatUpdate(HeartbeatFields):
    pass


class HeartbeatAttributes(ClosedModel):
    name: str
    url: str = Field(description="Ping this URL (GET or POST) from the job.")
    period: int
    grace: int
    heartbeat_group_id: int | None
    sort_index: int
    paused: bool
    paused_at: str | None
    status: HeartbeatStatus
    last_ping_at: str | None = Field(
        description="When the last ping arrived (a success or a failure); null until the first."
    )
    maintenance_from: str | None
    maintenance_to: str | None
    maintenance_timezone: str
    maintenance_days: list[Weekday]
    call: bool
    sms: bool
    email: bool
    push: bool
    team_wait: int | None
    policy_id: str | None
    critical_alert: bool
    server_timezone: str | None
    team_name: str
    created_at: str
    updated_at: str


# Optional, but never null (create and PATCH alike; a 422 names them).
HEARTBEAT_NOT_NULL: Final = tuple(
    name
    for name in HeartbeatFields.model_fields
    if name not in HEARTBEAT_NULLABLE | HEARTBEAT_NULL_RESETS
)

# ----------------------------------------------------------------------------- parsing


def parse_heartbeat_create(
    data: dict[str, Any], *, group_problems: list[tuple[str | None, str]]
) -> HeartbeatCreate:
    parsed, problems = checked(
        HeartbeatCreate, data, read_only=HEARTBEAT_READ_ONLY, not_null=HEARTBEAT_NOT_NULL
    )
    problems += group_problems
    if parsed is not None:
        problems += maintenance_problems(parsed.model_dump())
    return accepted(parsed, problems)


def parse_heartbeat_update(
    data: dict[str, Any],
    current: dict[str, Any],
    *,
    group_problems: list[tuple[str | None, str]],
) -> HeartbeatUpdate:
    """Validate a PATCH; the maintenance window is checked as it will be after the change."""
    parsed, problems = checked(
        HeartbeatUpdate, data, read_only=HEARTBEAT_READ_ONLY, not_null=HEARTBEAT_NOT_NULL
    )
    problems += group_problems
    if parsed is not None:
        sent = parsed.model_dump(include=parsed.model_fields_set)
        problems += maintenance_problems({**current, **sent})
    return accepted(parsed, problems)
