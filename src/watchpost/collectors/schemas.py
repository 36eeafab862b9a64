"""Request and response shapes of collectors and collector targets, and their rules."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from watchpost.collectors.hosted import Configuration, Databases, HostedSettings
from watchpost.collectors.target_kinds import (
    KIND_FIELDS,
    KIND_RULES,
    WRITE_ONLY_FIELDS,
    Kind,
    Scheme,
    SslMode,
    Tls,
    kind_problems,
)
from watchpost.destinations import resend_problems
from watchpost.problems import accepted, null_problems, team_name_problems, validated
from watchpost.sources.hosted import update_problems
from watchpost.sources.schemas import CustomBucketView, GroupId, TeamName
from watchpost.validation import (
    ClosedModel,
    DestinationHost,
    DestinationIp,
    DestinationUrl,
    Id,
    Name,
    Port,
    RetentionDays,
    Secret,
    ShortText,
)

Platform = Literal["docker", "swarm", "kubernetes"]
DEFAULT_PLATFORM: Platform = "docker"
DEFAULT_RETENTION_DAYS = 30

# ---------------------------------------------------------------------------- collectors


class CollectorCreate(HostedSettings):
    team_name: TeamName | None = None
    source_group_id: GroupId | None = Field(default=None, description="0 or null: no group.")
    databases: Databases | None = Field(
        default=None,
        description="Deprecated by the hosted API for collector targets: each entry is a "
        "database target (`service_type` its kind); with `id` it changes that one, with "
        "`_destroy: true` deletes it. Listed at `/databases`.",
    )
    name: Name
    platform: Platform = DEFAULT_PLATFORM
    note: str | None = Field(default=None, max_length=10_000)
    logs_retention: RetentionDays = DEFAULT_RETENTION_DAYS
    metrics_retention: RetentionDays = DEFAULT_RETENTION_DAYS


class CollectorUpdate(HostedSettings):
    team_name: TeamName | None = None
    source_group_id: GroupId | None = Field(
        default=None, description="null (or 0) removes the collector from its group."
    )
    databases: Databases | None = Field(
        default=None,
        description="Deprecated by the hosted API for collector targets: each entry is a "
        "database target (`service_type` its kind); with `id` it changes that one, with "
        "`_destroy: true` deletes it. Listed at `/databases`.",
    )
    name: Name | None = None
    platform: Platform | None = Field(default=None, description="Fixed after creation.")
    note: str | None = Field(default=None, max_length=10_000)
    logs_retention: RetentionDays | None = None
    metrics_retention: RetentionDays | None = None


# Optional on PATCH, but never null (a 422 names them).
COLLECTOR_NOT_NULL = ("name", "logs_retention", "metrics_retention")


class CollectorAttributes(ClosedModel):
    name: str
    platform: Platform
    note: str | None
    status: str
    secret: str
    team_id: int
    source_id: int | None
    logs_retention: int
    metrics_retention: int
    pinged_at: str | None
    created_at: str
    updated_at: str
    team_name: str
    source_group_id: int | None
    live_tail_pattern: str
    ingesting_paused: bool
    data_region: str | None
    user_vector_config: str | None
    source_vrl_transformation: str | None
    configuration: Configuration | None
    custom_bucket: CustomBucketView | None


def parse_collector(
    model: type[CollectorCreate] | type[CollectorUpdate],
    data: dict[str, Any],
    *,
    team_name: str,
    settings: dict[str, Any] | None = None,
) -> Any:
    """Validate a create (settings None) or PATCH: `source_group_id` 0 is no group, a
    `team_name` must be the token's team; a PATCH keeps data_region and custom_bucket."""
    if data.get("source_group_id") == 0 and data["source_group_id"] is not False:
        data = {**data, "source_group_id": None}
    parsed, problems = validated(model, data)
    problems += team_name_problems(data.get("team_name"), team_name)
    if settings is not None:
        problems += update_problems(data, settings, "collector")
    return accepted(parsed, problems)


# ---------------------------------------------------------------------- collector targets


class TargetFields(ClosedModel):
    """Types and formats of every target field; which apply is decided by KIND_RULES."""

    host: DestinationHost | None = None
    port: Port | None = None
    service: Name | None = None
    listen_ip: DestinationIp | None = None
    endpoint: DestinationUrl | None = None
    username: ShortText | None = None
    password: Secret | None = Field(default=None, description="Write-only.")
    api_key: Secret | None = Field(default=None, description="Write-only.")
    ssl_mode: SslMode | None = None
    tls: Tls | None = None
    scheme: Scheme | None = None
    enabled: bool | None = None
    location_id: Id | None = Field(
        default=None,
        description="Checked by that location's probe agents (GET /api/v2/locations); "
        "null: by the server itself.",
    )


class TargetCreate(TargetFields):
    kind: Kind
    host: DestinationHost
    enabled: bool = True


class TargetUpdate(TargetFields):
    kind: Kind | None = Field(default=None, description="Cannot change after creation.")


TARGET_NOT_NULL = ("kind", "host", "enabled")


class TargetAttributes(ClosedModel):
    kind: Kind
    host: str
    port: int | None
    service: str | None
    listen_ip: str | None
    endpoint: str | None
    scheme: Scheme | None
    username: str | None
    ssl_mode: SslMode | None
    tls: Tls | None
    location_id: int | None
    status: str
    enabled: bool
    container: None
    detected_host: None
    autogenerated: bool
    paused_until: str | None
    consecutive_failure_count: int
    last_ping_at: str | None
    last_error: str | None = Field(
        description="Why the latest check failed; null after a success and until the first check."
    )
    created_at: str
    updated_at: str


def _blank_to_none(data: dict[str, Any]) -> dict[str, Any]:
    """A blank string in a kind-dependent field means "not given" (spec: required and blank)."""
    return {
        key: (
            None if key in KIND_FIELDS and isinstance(value, str) and not value.strip() else value
        )
        for key, value in data.items()
    }


def _present(values: dict[str, Any]) -> set[str]:
    return {name for name in KIND_FIELDS if values.get(name) is not None}


def parse_target_create(data: dict[str, Any]) -> TargetCreate:
    """Validate a create request: types, formats and the kind's table, all reported at once."""
    data = _blank_to_none(data)
    parsed, problems = validated(TargetCreate, data)
    kind = data.get("kind")
    if isinstance(kind, str) and kind in KIND_RULES:
        problems += kind_problems(kind, _present(data))
    return accepted(parsed, problems)


def parse_target_update(data: dict[str, Any], current: dict[str, Any]) -> TargetUpdate:
    """Validate a PATCH against the target as it is: kind fixed, table applied to the merge."""
    data = _blank_to_none(data)
    parsed, problems = validated(TargetUpdate, data)
    kind = current["kind"]
    if data.get("kind") is not None and data["kind"] != kind:
        problems.append(("kind", f"kind cannot be changed (this target is {kind})"))
    problems += null_problems(data, TARGET_NOT_NULL)
    merged = {**current, **{key: value for key, value in data.items() if key in KIND_FIELDS}}
    problems += kind_problems(kind, _present(merged))
    if parsed is not None:
        sent = parsed.model_fields_set
        problems += resend_problems(
            "collector_target",
            current=current,
            # A field the kind does not take is refused by the table and goes nowhere.
            changes={
                name: getattr(parsed, name)
                for name in sent
                if name == "host" or name in KIND_RULES[kind].accepted
            },
            stored={name for name in WRITE_ONLY_FIELDS if current.get(name) is not None},
            resent=sent,
            defaults=KIND_RULES[kind].defaults,
        )
    return accepted(parsed, problems)


class DatabaseAttributes(ClosedModel):
    service_type: str
    host: str
    port: int | None
    username: str | None
    ssl_mode: SslMode | None
    tls: Tls | None


class MetricSampleAttributes(ClosedModel):
    at: str
    values: dict[str, float]
