"""logtail_source and logtail_source_group: the requests the logs Terraform provider sends
for the configurations of its examples and acceptance tests, replayed, and what it reads back.

The provider (resource_source.go) creates at `POST /api/v2/sources` with the configured
fields only (json `omitempty`), reads `GET /api/v2/sources/{id}`, updates with the changed
fields (`PATCH`; the VRL programs whenever configured, `source_group_id: 0` to leave a
group) and deletes at v2. Its data source pages through `GET /api/v2/sources?page=N`. Source
groups (resource_source_group.go) live at /api/v1/source-groups.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.compat.terraform import assert_reads_back
from tests.factories.api import Api, data, errors
from watchpost.sources.platforms import PLATFORMS

V2 = "/api/v2/sources"
V1 = "/api/v1/sources"
GROUPS = "/api/v1/source-groups"
GROUP = "$group"  # stands for a source group's id in a configuration
# The provider's platformTypes (resource_source.go), every one of which it lets through.
PROVIDER_PLATFORMS = [
    "apache2",
    "aws",
    "aws_cloudwatch",
    "aws_ecs",
    "aws_elb",
    "aws_fargate",
    "azure",
    "azure_logs",
    "cloudflare_logpush",
    "cloudflare_prometheus_exporter",
    "cloudflare_worker",
    "datadog_agent",
    "digitalocean",
    "docker",
    "dokku",
    "dotnet",
    "elasticsearch",
    "erlang",
    "fastly",
    "filebeat",
    "flights",
    "fluentbit",
    "fluentd",
    "fly_io",
    "gcp",
    "go",
    "google_cloud_pubsub",
    "haproxy",
    "heroku",
    "http",
    "java",
    "javascript",
    "kubernetes",
    "logstash",
    "minio",
    "mongodb",
    "mysql",
    "nginx",
    "open_telemetry",
    "php",
    "postgresql",
    "prometheus",
    "prometheus_scrape",
    "python",
    "rabbitmq",
    "redis",
    "render",
    "rsyslog",
    "ruby",
    "syslog-ng",
    "traefik",
    "ubuntu",
    "vector",
    "vercel_integration",
    "winlogbeat",
]
# Never shown again (docs/api.md): the provider's state keeps what was configured.
WRITE_ONLY = ("scrape_request_basic_auth_password", "custom_bucket.secret_access_key")

EXAMPLES: dict[str, dict[str, Any]] = {
    # examples/resources/logtail_source
    "this": {"name": "Production", "platform": "http"},
    "aws": {"name": "AWS production", "platform": "aws"},
    "transformed": {
        "name": "Production (transformed)",
        "platform": "http",
        "vrl_transformation_logs": ".level = downcase(to_string!(.level))\n",
        "vrl_transformation_spans": 'if .name == "GET /api/health" {\n    del(.)\n}\n',
        "blocked_metrics": ["go_gc_duration_seconds", "go_memstats_heap_idle_bytes"],
    },
    "scrape": {
        "name": "Prometheus scrape",
        "platform": "prometheus_scrape",
        "source_group_id": GROUP,
        "scrape_urls": ["https://myserver.example.com/metrics"],
        "scrape_frequency_secs": 30,
        "scrape_request_headers": [{"name": "User-Agent", "value": "My Scraper"}],
        "scrape_request_basic_auth_user": "foo",
        "scrape_request_basic_auth_password": "bar",
        "skip_ssl_verify": True,
    },
    "custom_bucket": {
        "name": "Production (custom bucket)",
        "platform": "http",
        "custom_bucket": {
            "endpoint": "https://s3.us-east-1.amazonaws.com/my-bucket",
            "access_key_id": "AKIAEXAMPLE",
            "secret_access_key": "example-secret",
            "keep_data_after_retention": True,
        },
    },
    "configured": {
        "name": "Production (EU)",
        "platform": "http",
        "data_region": "germany",
        "logs_retention": 60,
        "metrics_retention": 90,
        "source_group_id": GROUP,
        "ingesting_paused": True,
        "live_tail_pattern": "{level} {message}",
    },
    # acceptance tests: team_name, code mapping, an emptied VRL program
    "team_and_code_mapping": {
        "name": "Errors",
        "platform": "javascript",
        "team_name": "acme",
        "code_mapping_stack_root": "/app/",
        "code_mapping_source_root": "src/",
        "vrl_transformation_logs": "",
    },
}
# What the provider's update sends for each (the changed fields).
CHANGES: dict[str, dict[str, Any]] = {
    "this": {"name": "Production 2", "logs_retention": 14},
    "aws": {"ingesting_paused": True},
    "transformed": {
        "vrl_transformation_logs": "",
        "vrl_transformation_spans": ".kept = true\n",
        "blocked_metrics": ["go_goroutines"],
    },
    "scrape": {
        "source_group_id": 0,
        "scrape_urls": ["https://a.example.com/metrics", "https://b.example.com/metrics"],
        "scrape_frequency_secs": 60,
        "skip_ssl_verify": False,
    },
    "custom_bucket": {"metrics_retention": 30},
    "configured": {"live_tail_pattern": "{dt} {level} {message}", "data_region": "germany"},
    "team_and_code_mapping": {"code_mapping_stack_root": "/srv/", "vrl_transformation_logs": ""},
}


def _resolved(config: dict[str, Any], group_id: int) -> dict[str, Any]:
    return {key: group_id if value == GROUP else value for key, value in config.items()}


def _provider_state(sent: dict[str, Any]) -> dict[str, Any]:
    """What the provider compares with the response: team_name is not read back,
    source_group_id 0 is "no group" (the state keeps 0 or nothing)."""
    return {
        key: value
        for key, value in sent.items()
        if key != "team_name" and not (key == "source_group_id" and value == 0)
    }


async def _group(api: Api) -> int:
    created = data(await api.post(GROUPS, {"name": "Production sources"}), 201)
    return int(created["id"])


@pytest.mark.parametrize("example", EXAMPLES)
async def test_create_read_update_read(api: Api, example: str) -> None:
    sent = _resolved(EXAMPLES[example], await _group(api))
    created = data(await api.post(V2, sent), 201)
    assert_reads_back(_provider_state(sent), created["attributes"], write_only=WRITE_ONLY)
    url = f"{V2}/{created['id']}"
    read = data(await api.get(url))
    assert read == data(await api.get(f"{V1}/{created['id']}"))  # one object, two addresses
    assert_reads_back(_provider_state(sent), read["attributes"], write_only=WRITE_ONLY)

    change = CHANGES[example]
    data(await api.patch(url, change))
    after = data(await api.get(url))["attributes"]
    assert_reads_back(_provider_state({**sent, **change}), after, write_only=WRITE_ONLY)
    if change.get("source_group_id") == 0:
        assert after["source_group_id"] is None

    # the data source finds it by paging through v2
    listed = (await api.get(V2, params={"page": 1})).json()
    assert created["id"] in [row["id"] for row in listed["data"]]
    assert (await api.delete(url)).status_code == 204
    assert (await api.get(url)).status_code == 404


async def test_secrets_are_write_only_and_the_bucket_name_comes_from_the_endpoint(
    api: Api,
) -> None:
    scrape = _resolved(EXAMPLES["scrape"], await _group(api))
    created = data(await api.post(V2, scrape), 201)["attributes"]
    assert "scrape_request_basic_auth_password" not in created
    bucket = data(await api.post(V2, EXAMPLES["custom_bucket"]), 201)["attributes"]
    assert bucket["custom_bucket"] == {
        "name": "my-bucket",
        "endpoint": "https://s3.us-east-1.amazonaws.com/my-bucket",
        "access_key_id": "AKIAEXAMPLE",
        "keep_data_after_retention": True,
    }
    assert "example-secret" not in str(bucket)


async def test_region_and_bucket_are_fixed_after_creation(api: Api) -> None:
    created = data(await api.post(V2, EXAMPLES["custom_bucket"] | {"data_region": "us_west"}), 201)
    url = f"{V2}/{created['id']}"
    assert errors(await api.patch(url, {"data_region": "germany"}))[1] == ["data_region"]
    bucket = EXAMPLES["custom_bucket"]["custom_bucket"]
    assert errors(await api.patch(url, {"custom_bucket": bucket}))[1] == ["custom_bucket"]
    data(await api.patch(url, {"data_region": "us_west"}))  # the same value is no change


async def test_team_name_must_be_the_tokens_team(api: Api) -> None:
    body = {"name": "x", "platform": "http", "team_name": "globex"}
    assert errors(await api.post(V2, body))[1] == ["team_name"]


async def test_every_platform_the_provider_allows_is_accepted(api: Api) -> None:
    assert set(PROVIDER_PLATFORMS) <= set(PLATFORMS)
    for platform in PROVIDER_PLATFORMS:
        data(await api.post(V2, {"name": f"s {platform}", "platform": platform}), 201)


async def test_an_unknown_attribute_is_still_refused(api: Api) -> None:
    body = {"name": "x", "platform": "http", "scrape_every": 5}
    assert errors(await api.post(V2, body))[1] == ["scrape_every"]


async def test_ingesting_host_is_an_address_a_client_can_send_to(api: Api) -> None:
    """A server on port 18100 answers `127.0.0.1:18100`, not a bare `127.0.0.1`."""
    created = data(await api.post(V2, EXAMPLES["this"]), 201)
    headers = {**api.headers, "Host": "127.0.0.1:18100"}
    for url in (f"{V2}/{created['id']}", f"{V1}/{created['id']}"):
        shown = data(await api.client.get(url, headers=headers))
        assert shown["attributes"]["ingesting_host"] == "127.0.0.1:18100"
    listed = (await api.client.get(V2, headers=headers)).json()["data"]
    assert listed[0]["attributes"]["ingesting_host"] == "127.0.0.1:18100"


async def test_source_group_resource(api: Api) -> None:
    """resource_source_group.go: name and sort_index, read back equal."""
    sent = {"name": "My second source group", "sort_index": 2}
    created = data(await api.post(GROUPS, {**sent, "team_name": "acme"}), 201)
    assert_reads_back(sent, created["attributes"])
    assert errors(await api.post(GROUPS, {"name": "x", "team_name": "globex"}))[1] == ["team_name"]
    url = f"{GROUPS}/{created['id']}"
    data(await api.patch(url, {"sort_index": 3}))
    assert_reads_back({**sent, "sort_index": 3}, data(await api.get(url))["attributes"])
