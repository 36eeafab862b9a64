"""The rules of sources: known platforms, defaults, and which attributes a client may write.

This module is the single source of them: request validation, the OpenAPI descriptions
and the tests all read it.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

# What sends the data. Informational (it picks the setup instructions a client shows), and
# fixed after creation.
Platform = Literal[
    # languages and frameworks
    "http",
    "python",
    "ruby",
    "javascript",
    "node",
    "go",
    "java",
    "dotnet",
    "php",
    "elixir",
    "erlang",
    "rust",
    # containers, hosts and shippers
    "docker",
    "kubernetes",
    "ubuntu",
    "syslog",
    "syslog-ng",
    "rsyslog",
    "journald",
    "vector",
    "fluentd",
    "fluentbit",
    "logstash",
    "filebeat",
    "datadog_agent",
    "open_telemetry",
    "prometheus",
    "prometheus_scrape",
    # servers and databases
    "nginx",
    "apache2",
    "haproxy",
    "traefik",
    "caddy",
    "postgresql",
    "mysql",
    "mongodb",
    "redis",
    "elasticsearch",
    "rabbitmq",
    "kafka",
    # clouds and hosting
    "aws_cloudwatch",
    "aws_ecs",
    "aws_lambda",
    "aws_elb",
    "google_cloud_pubsub",
    "azure",
    "cloudflare_worker",
    "cloudflare_logpush",
    "heroku",
    "vercel_integration",
    "fly_io",
    "render",
    "digitalocean",
    "dokku",
    # the rest of the hosted API's list (its Terraform provider's validation)
    "aws",
    "aws_fargate",
    "azure_logs",
    "cloudflare_prometheus_exporter",
    "fastly",
    "flights",
    "gcp",
    "minio",
    "winlogbeat",
]
PLATFORMS: Final[tuple[str, ...]] = get_args(Platform)

DEFAULT_LOGS_RETENTION: Final = 30
DEFAULT_METRICS_RETENTION: Final = 30
DEFAULT_LIVE_TAIL_PATTERN: Final = "{level} {message}"

# Attributes a response shows but a client never writes: sending one is a 422 naming it.
READ_ONLY_FIELDS: Final[tuple[str, ...]] = (
    "team_id",
    "table_name",
    "token",
    "ingesting_host",
    "ingesting_url",
    "created_at",
    "updated_at",
)
# What PATCH may change; `platform` may be sent only with its current value.
UPDATABLE_FIELDS: Final[tuple[str, ...]] = (
    "name",
    "ingesting_paused",
    "logs_retention",
    "metrics_retention",
    "live_tail_pattern",
    "source_group_id",
)
# Sent as null on PATCH these are a 422; `source_group_id: null` removes the source from its group.
NOT_NULL_FIELDS: Final[tuple[str, ...]] = (
    "name",
    "ingesting_paused",
    "logs_retention",
    "metrics_retention",
    "live_tail_pattern",
)

# table_name: `t<team id>_<slug of the name>`, an SQL identifier that never changes.
TABLE_NAME_MAX: Final = 63
TABLE_NAME_FALLBACK: Final = "source"


def platforms_markdown() -> str:
    """The platform list and defaults as Markdown, for the OpenAPI description."""
    return (
        "`platform` is one of: "
        + ", ".join(f"`{name}`" for name in PLATFORMS)
        + ". It cannot change after creation.\n\n"
        f"Defaults: `logs_retention` {DEFAULT_LOGS_RETENTION} days, `metrics_retention` "
        f"{DEFAULT_METRICS_RETENTION} days (both 1 to 3652), `ingesting_paused` false, "
        f"`live_tail_pattern` `{DEFAULT_LIVE_TAIL_PATTERN}`.\n\n"
        "Read-only: " + ", ".join(f"`{name}`" for name in READ_ONLY_FIELDS) + ". "
        "`team_name` may be sent; it must name the API token's team. `source_group_id` 0 "
        "means no group. The hosted API's other attributes (`data_region`, the `scrape_*` "
        "settings, `vrl_transformation_*`, `blocked_metrics`, `custom_bucket` …) are stored "
        "and returned without effect here (passwords and secret keys are write-only)."
    )
