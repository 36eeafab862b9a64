"""The hosted API's collector attributes that Watchpost stores and returns without acting on
them: Watchpost ships no collector agent, so nothing reads them back but the API's clients.

They live in the collector's `settings` column (the bucket's secret key encrypted); docs/api.md
lists them. `source_group_id` is a column of its own (checked against the team's groups).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field

from watchpost.collectors.target_kinds import SslMode, Tls
from watchpost.crypto import SecretBox
from watchpost.sources import hosted as sources_hosted
from watchpost.sources.hosted import CustomBucket
from watchpost.sources.platforms import DEFAULT_LIVE_TAIL_PATTERN
from watchpost.sources.schemas import LiveTailPattern
from watchpost.validation import ClosedModel, DestinationHost, Id, Port, Secret, ShortText

Percent = Annotated[int, Field(ge=0, le=100)]
Program = Annotated[str, Field(max_length=65_536)]
MAX_OPTIONS: Final = 1000


class Components(ClosedModel):
    logs_host: bool | None = None
    logs_docker: bool | None = None
    logs_kubernetes: bool | None = None
    logs_collector_internals: bool | None = None
    metrics_databases: bool | None = None
    metrics_nginx: bool | None = None
    metrics_apache: bool | None = None
    metrics_traefik: bool | None = None
    ebpf_metrics: bool | None = None
    ebpf_tracing_basic: bool | None = None
    ebpf_tracing_full: bool | None = None
    traces_opentelemetry: bool | None = None
    ebpf_red_metrics: bool | None = None


class EntityOption(ClosedModel):
    log_sampling: Percent | None = None
    ingest_traces: bool | None = None


EntityOptions = Annotated[dict[ShortText, EntityOption], Field(max_length=MAX_OPTIONS)]
"""Options by service or namespace name."""


class Configuration(ClosedModel):
    """What the hosted API's agent is told to collect; stored and returned as sent."""

    logs_sample_rate: Percent | None = None
    traces_sample_rate: Percent | None = None
    components: Components | None = None
    vrl_transformation: Program | None = None
    merge_logs: bool | None = None
    merge_logs_config: Program | None = None
    disk_batch_size_mb: Annotated[int, Field(ge=256, le=1_048_576)] | None = None
    memory_batch_size_mb: Annotated[int, Field(ge=1, le=40)] | None = None
    buffer_max_events: Annotated[int, Field(ge=1, le=100_000_000)] | None = None
    when_full: Literal["drop_newest", "block"] | None = None
    log_line_length_limit_kb: Annotated[int, Field(ge=4, le=128)] | None = None
    services_options: EntityOptions | None = None
    namespaces_options: EntityOptions | None = None


class HostedSettings(ClosedModel):
    data_region: Annotated[str, Field(min_length=1, max_length=64)] | None = Field(
        default=None, description="Fixed after creation; stored as sent."
    )
    live_tail_pattern: LiveTailPattern | None = None
    ingesting_paused: bool | None = None
    user_vector_config: Program | None = None
    source_vrl_transformation: Program | None = None
    configuration: Configuration | None = None
    custom_bucket: CustomBucket | None = Field(default=None, description="Create only.")


ServiceType = Literal["postgres", "mysql", "redis", "mongodb", "memcached"]
SERVICE_TYPES: Final[tuple[str, ...]] = ("postgres", "mysql", "redis", "mongodb", "memcached")
MAX_DATABASES: Final = 50


class DatabaseEntry(ClosedModel):
    """One entry of `databases`: with `id` it changes (or, with `_destroy`, deletes) that one."""

    id: Id | None = None
    service_type: ServiceType | None = None
    host: DestinationHost | None = None
    port: Port | None = None
    username: ShortText | None = None
    password: Secret | None = Field(default=None, description="Write-only.")
    ssl_mode: SslMode | None = None
    tls: Tls | None = None
    destroy: bool | None = Field(default=None, alias="_destroy")


Databases = Annotated[list[DatabaseEntry], Field(max_length=MAX_DATABASES)]
HOSTED_FIELDS: Final[tuple[str, ...]] = tuple(HostedSettings.model_fields)
_SHOWN: Final = (
    "data_region",
    "user_vector_config",
    "source_vrl_transformation",
    "configuration",
    "live_tail_pattern",
)


def merged(
    stored: dict[str, Any] | None, data: HostedSettings, sent: set[str], box: SecretBox
) -> dict[str, Any]:
    """The settings to store: the sent fields over the stored ones (null clears one)."""
    return sources_hosted.merged(stored, data, sent, box, HOSTED_FIELDS)


def attributes(stored: dict[str, Any] | None) -> dict[str, Any]:
    """The hosted attributes as a response shows them (never the bucket's secret key)."""
    defaults = {"live_tail_pattern": DEFAULT_LIVE_TAIL_PATTERN}
    return sources_hosted.attributes(stored, _SHOWN, ("ingesting_paused",), defaults)
