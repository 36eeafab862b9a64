"""Request and response shapes of sources, and their rules."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from watchpost.errors import Problem
from watchpost.problems import accepted, checked, team_name_problems
from watchpost.sources import hosted
from watchpost.sources.hosted import HostedSettings, ScrapeHeader
from watchpost.sources.platforms import (
    DEFAULT_LIVE_TAIL_PATTERN,
    DEFAULT_LOGS_RETENTION,
    DEFAULT_METRICS_RETENTION,
    NOT_NULL_FIELDS,
    READ_ONLY_FIELDS,
    Platform,
)
from watchpost.validation import INT64_MAX, ClosedModel, Name, RetentionDays

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
# 0 is the hosted API's "no group" (read as null before the model sees it).
GroupId = Annotated[int, Field(ge=0, le=INT64_MAX)]
TeamName = Annotated[str, Field(max_length=255, description="Must name the API token's team.")]

# ------------------------------------------------------------------------------- sources


class SourceCreate(HostedSettings):
    model_config = ConfigDict(extra="forbid")

    team_name: TeamName | None = None
    name: Name
    platform: Platform = Field(description="Fixed after creation.")
    source_group_id: GroupId | None = Field(default=None, description="0 or null: no group.")
    ingesting_paused: bool = False
    logs_retention: RetentionDays = Field(default=DEFAULT_LOGS_RETENTION, description="Days.")
    metrics_retention: RetentionDays = Field(default=DEFAULT_METRICS_RETENTION, description="Days.")
    live_tail_pattern: LiveTailPattern = DEFAULT_LIVE_TAIL_PATTERN


class SourceUpdate(HostedSettings):
    model_config = ConfigDict(extra="forbid")

    team_name: TeamName | None = None
    name: Name | None = None
    platform: Platform | None = Field(
        default=None, description="Fixed after creation: only its current value is accepted."
    )
    source_group_id: GroupId | None = Field(
        default=None, description="null (or 0) removes the source from its group."
    )
    ingesting_paused: bool | None = None
    logs_retention: RetentionDays | None = None
    metrics_retention: RetentionDays | None = None
    live_tail_pattern: LiveTailPattern | None = None


class SourceAttributes(ClosedModel):
    team_id: int
    team_name: str
    name: str
    source_group_id: int | None
    table_name: str
    platform: Platform
    token: str
    ingesting_host: str
    ingesting_url: str = Field(
        description="Where clients send logs, with the scheme (`ingesting_host` has none; "
        "logtail-python takes a bare host as https): logtail-python's `host`, the URL of "
        "Vector's http sink, Fluent Bit's http output (host, port, tls) and OTLP exporters "
        "(`/v1/logs`). Read-only; not an attribute of the hosted API.",
        json_schema_extra={"readOnly": True},
    )
    ingesting_paused: bool
    logs_retention: int
    metrics_retention: int
    live_tail_pattern: str
    created_at: str
    updated_at: str
    data_region: str | None
    vrl_transformation_logs: str | None
    vrl_transformation_spans: str | None
    blocked_metrics: list[str] | None
    scrape_urls: list[str] | None
    scrape_frequency_secs: int | None
    scrape_request_headers: list[ScrapeHeader] | None
    scrape_request_basic_auth_user: str | None
    code_mapping_stack_root: str | None
    code_mapping_source_root: str | None
    skip_ssl_verify: bool
    aws_auto_sub_log_groups: bool
    custom_bucket: CustomBucketView | None


class CustomBucketView(BaseModel):
    name: str
    endpoint: str
    access_key_id: str
    keep_data_after_retention: bool


SourceAttributes.model_rebuild()


def _no_group_zero(data: dict[str, Any]) -> dict[str, Any]:
    """`source_group_id: 0` is the hosted API's (and its Terraform provider's) "no group"."""
    if data.get("source_group_id") == 0 and data["source_group_id"] is not False:
        return {**data, "source_group_id": None}
    return data


def parse_source_create(data: dict[str, Any], *, team_name: str) -> SourceCreate:
    data = _no_group_zero(data)
    parsed, problems = checked(SourceCreate, data, read_only=READ_ONLY_FIELDS)
    return accepted(parsed, problems + team_name_problems(data.get("team_name"), team_name))


def parse_source_update(
    data: dict[str, Any], *, platform: str, team_name: str, settings: dict[str, Any] | None
) -> SourceUpdate:
    """Validate a PATCH against the source as it is: platform, data region and bucket fixed,
    no null for a required field."""
    data = _no_group_zero(data)
    problems: list[Problem] = team_name_problems(data.get("team_name"), team_name)
    problems += hosted.update_problems(data, settings or {})
    if "platform" in data and data["platform"] != platform:
        problems.append(("platform", f"platform cannot be changed (this source is {platform})"))
    parsed, invalid = checked(
        SourceUpdate, data, read_only=READ_ONLY_FIELDS, not_null=NOT_NULL_FIELDS
    )
    return accepted(parsed, problems + invalid)
