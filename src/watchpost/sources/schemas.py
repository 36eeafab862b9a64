"""Request and response shapes of sources, and their rules."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from watchpost.errors import Problem
from watchpost.problems import accepted, checked
from watchpost.sources.platforms import (
    DEFAULT_LIVE_TAIL_PATTERN,
    DEFAULT_LOGS_RETENTION,
    DEFAULT_METRICS_RETENTION,
    NOT_NULL_FIELDS,
    READ_ONLY_FIELDS,
    Platform,
)
from watchpost.validation import Id, Name, RetentionDays

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_PLACEHOLDER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def check_live_tail_pattern(value: str) -> str:
    """Text with `{field}` placeholders (dotted paths allowed); braces must pair up."""
    if not value.strip():
        raise ValueError("must not be blank")
    for match in _PLACEHOLDER.finditer(value):
        if not _PLACEHOLDER_NAME.match(match.group(1).strip()):
            raise ValueError("placeholders must name a field, like {level} or {context.host}")
    if "{" in _PLACEHOLDER.sub("", value) or "}" in _PLACEHOLDER.sub("", value):
        raise ValueError("must pair every { with a } (placeholders cannot nest)")
    return value


LiveTailPattern = Annotated[str, Field(max_length=1000), AfterValidator(check_live_tail_pattern)]
GroupId = Id

# ------------------------------------------------------------------------------- sources


class SourceCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name
    platform: Platform = Field(description="Fixed after creation.")
    source_group_id: GroupId | None = None
    ingesting_paused: bool = False
    logs_retention: RetentionDays = Field(default=DEFAULT_LOGS_RETENTION, description="Days.")
    metrics_retention: RetentionDays = Field(default=DEFAULT_METRICS_RETENTION, description="Days.")
    live_tail_pattern: LiveTailPattern = DEFAULT_LIVE_TAIL_PATTERN


class SourceUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    platform: Platform | None = Field(
        default=None, description="Fixed after creation: only its current value is accepted."
    )
    source_group_id: GroupId | None = Field(
        default=None, description="null removes the source from its group."
    )
    ingesting_paused: bool | None = None
    logs_retention: RetentionDays | None = None
    metrics_retention: RetentionDays | None = None
    live_tail_pattern: LiveTailPattern | None = None


class SourceAttributes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    team_id: int
    team_name: str
    name: str
    source_group_id: int | None
    table_name: str
    platform: Platform
    token: str
    ingesting_host: str
    ingesting_paused: bool
    logs_retention: int
    metrics_retention: int
    live_tail_pattern: str
    created_at: str
    updated_at: str


def parse_source_create(data: dict[str, Any]) -> SourceCreate:
    return accepted(*checked(SourceCreate, data, read_only=READ_ONLY_FIELDS))


def parse_source_update(data: dict[str, Any], *, platform: str) -> SourceUpdate:
    """Validate a PATCH against the source as it is: platform fixed, no null for a required field."""
    problems: list[Problem] = []
    if "platform" in data and data["platform"] != platform:
        problems.append(("platform", f"platform cannot be changed (this source is {platform})"))
    parsed, invalid = checked(
        SourceUpdate, data, read_only=READ_ONLY_FIELDS, not_null=NOT_NULL_FIELDS
    )
    return accepted(parsed, problems + invalid)
