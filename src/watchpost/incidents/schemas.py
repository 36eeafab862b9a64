"""Request and response shapes of incidents and their timeline, and the list filters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from watchpost import times
from watchpost.errors import InvalidRequest
from watchpost.validation import INT64_MAX, ClosedModel, Id, Name, check_not_blank, parse_id

MAX_SUMMARY = 10_000
MAX_METADATA_KEYS = 50
MAX_METADATA_VALUES = 100

Person = Annotated[
    str,
    Field(max_length=320, description="An e-mail address or a name."),
    AfterValidator(check_not_blank),
]
MetadataKey = Annotated[str, Field(min_length=1, max_length=255), AfterValidator(check_not_blank)]
MetadataValue = Annotated[str, Field(min_length=1, max_length=1000)]
Metadata = Annotated[
    dict[MetadataKey, Annotated[list[MetadataValue], Field(max_length=MAX_METADATA_VALUES)]],
    Field(max_length=MAX_METADATA_KEYS),
]

Status = Literal["started", "acknowledged", "resolved"]


class IncidentCreate(ClosedModel):
    """A manually reported incident."""

    name: Name = Field(description="Short title, e.g. 'Checkout is slow'.")
    summary: Annotated[str, Field(max_length=MAX_SUMMARY), AfterValidator(check_not_blank)] = Field(
        description="What is wrong; becomes the incident's `cause`."
    )
    requester_email: Person | None = Field(
        default=None,
        description="Who reports it; shown on the `started` timeline item. Default: team name.",
    )
    monitor_id: Id | None = Field(default=None, description="A monitor of the team.")
    heartbeat_id: Id | None = Field(default=None, description="A heartbeat of the team.")
    metadata: Metadata | None = Field(
        default=None, description="Key → list of string values, matched by status page rules."
    )
    description: Annotated[str, Field(max_length=MAX_SUMMARY)] | None = Field(
        default=None, description="The full story, beside the `summary`. Stored."
    )
    email: bool | None = Field(
        default=None, description="E-mail the team's members (default true)."
    )
    call: bool | None = Field(default=None, description="Stored (default false).")
    sms: bool | None = Field(default=None, description="Stored (default false).")
    push: bool | None = Field(default=None, description="Stored (default false).")
    critical_alert: bool | None = Field(default=None, description="Stored (default false).")
    team_wait: int | None = Field(
        default=None, ge=0, le=86_400, description="Seconds before the whole team is alerted."
    )
    policy_id: Id | None = Field(
        default=None, description="An escalation policy (stored; shown as escalation_policy_id)."
    )


class AcknowledgeBody(ClosedModel):
    acknowledged_by: Person | None = Field(
        default=None, description="Who acknowledges. Default (absent or null): the team's name."
    )


class ResolveBody(ClosedModel):
    resolved_by: Person | None = Field(
        default=None, description="Who resolves. Default (absent or null): the team's name."
    )


class ReopenBody(ClosedModel):
    reopened_by: Person | None = Field(
        default=None, description="Who reopens. Default (absent or null): the team's name."
    )


Content = Annotated[
    str,
    Field(min_length=1, max_length=MAX_SUMMARY, description="Markdown."),
    AfterValidator(check_not_blank),
]


class CommentCreate(ClosedModel):
    content: Content


class CommentUpdate(ClosedModel):
    content: Content


class CommentAttributes(ClosedModel):
    id: int
    content: str
    user_id: int | None
    user_email: str | None
    created_at: str
    updated_at: str


class IncidentAttributes(ClosedModel):
    name: str
    cause: str
    status: Status
    started_at: str
    acknowledged_at: str | None
    acknowledged_by: str | None
    resolved_at: str | None
    resolved_by: str | None
    monitor_id: int | None
    heartbeat_id: int | None
    collector_target_id: int | None
    manual: bool
    metadata: dict[str, list[str]]
    call: bool
    sms: bool
    email: bool
    push: bool
    critical_alert: bool
    escalation_policy_id: int | None
    url: str | None
    http_method: str | None
    origin_url: str | None
    response_url: str | None
    response_content: str | None
    response_options: dict[str, str] | None
    regions: list[str] | None
    screenshot_url: str | None
    ssl_certificate_expires_at: str | None
    domain_expires_at: str | None
    incident_group_id: int | None
    locations: list[dict[str, str | None]] | None = Field(
        description="A monitor checked from several locations: how each found it "
        "(location, status down/up/unknown, error)."
    )
    team_name: str
    created_at: str
    updated_at: str


class TimelineItemAttributes(ClosedModel):
    at: str
    kind: str = Field(description="started, acknowledged, resolved (more kinds may be added).")
    text: str
    by: str | None


# ------------------------------------------------------------------------ list filters


@dataclass(frozen=True)
class IncidentFilters:
    monitor_id: int | None = None
    heartbeat_id: int | None = None
    resolved: bool | None = None
    acknowledged: bool | None = None
    started_from: datetime | None = None
    """Inclusive lower bound of started_at."""
    started_before: datetime | None = None
    """Exclusive upper bound of started_at."""


_BOOLEANS = {"true": True, "false": False}
_ONE_MS = timedelta(milliseconds=1)


def _instant(raw: str, *, end: bool) -> datetime:
    """A date or datetime bound, any time UTC holds (a filter from 1900 finds what one from
    1970 does). A date starts (from) or ends (to) with its whole UTC day."""
    moment = times.read_time(raw, day_end=end, earliest=times.FIRST, latest=times.LAST)
    if not end or times.is_day(raw):
        return moment
    # Timestamps are stored and shown to the millisecond: `to` includes its whole millisecond.
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000) + _ONE_MS


def parse_filters(
    *,
    monitor_id: str | None,
    heartbeat_id: str | None,
    resolved: str | None,
    acknowledged: str | None,
    from_: str | None,
    to: str | None,
) -> IncidentFilters:
    """The list filters from query strings; every bad one reported at once (empty = absent)."""
    problems: list[tuple[str | None, str]] = []
    ids: dict[str, int | None] = {}
    for name, raw in (("monitor_id", monitor_id), ("heartbeat_id", heartbeat_id)):
        ids[name] = None
        if raw:
            ids[name] = parse_id(raw)
            if ids[name] is None:
                problems.append((name, f"{name} must be an integer id (1 to {INT64_MAX})"))
    flags: dict[str, bool | None] = {}
    for name, raw in (("resolved", resolved), ("acknowledged", acknowledged)):
        flags[name] = None
        if raw:
            if raw.lower() in _BOOLEANS:
                flags[name] = _BOOLEANS[raw.lower()]
            else:
                problems.append((name, f"{name} must be true or false"))
    bounds: dict[str, datetime | None] = {}
    for name, raw, end in (("from", from_, False), ("to", to, True)):
        bounds[name] = None
        if raw:
            try:
                bounds[name] = _instant(raw, end=end)
            except (ValueError, OverflowError):
                problems.append((name, f"{name} must be an ISO 8601 date (2026-01-31) or datetime"))
    lower, upper = bounds["from"], bounds["to"]
    if lower is not None and upper is not None and upper <= lower:
        problems.append(("to", "to must not be before from"))
    if problems:
        raise InvalidRequest(problems)
    return IncidentFilters(
        monitor_id=ids["monitor_id"],
        heartbeat_id=ids["heartbeat_id"],
        resolved=flags["resolved"],
        acknowledged=flags["acknowledged"],
        started_from=lower,
        started_before=upper,
    )
