"""logtail_collector and logtail_collector_target: the requests the logs Terraform provider
sends for the configurations of its examples and acceptance tests, replayed, and what it reads
back.

The provider (resource_collector.go) creates at `POST /api/v1/collectors` with the configured
fields, `team_name`, a `configuration` object (its two sample rates always, all thirteen
`components` flags when the block is there, the service and namespace options as maps) and a
`custom_bucket`; reads `GET /api/v1/collectors/{id}`; updates with the changed fields (the
whole configuration when it changed, `source_group_id: 0` to leave a group). Its data source
lists `GET /api/v1/collectors?name=…&page=N`. Targets (resource_collector_target.go) use
/api/v1/collectors/{id}/targets with the specification's kinds.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.compat.terraform import assert_reads_back
from tests.factories.api import Api, data, errors

BASE = "/api/v1/collectors"
GROUPS = "/api/v1/source-groups"
GROUP = "$group"
COMPONENTS = [
    "logs_host",
    "logs_docker",
    "logs_kubernetes",
    "logs_collector_internals",
    "metrics_databases",
    "metrics_nginx",
    "metrics_apache",
    "metrics_traefik",
    "ebpf_metrics",
    "ebpf_tracing_basic",
    "ebpf_tracing_full",
    "traces_opentelemetry",
    "ebpf_red_metrics",
]
WRITE_ONLY = ("custom_bucket.secret_access_key",)


def configuration(block: dict[str, Any]) -> dict[str, Any]:
    """loadCollectorConfiguration(): what the provider sends for a configuration block."""
    sent: dict[str, Any] = {
        "logs_sample_rate": block.get("logs_sample_rate", 0),
        "traces_sample_rate": block.get("traces_sample_rate", 0),
    }
    if "components" in block:
        sent["components"] = {name: block["components"].get(name, False) for name in COMPONENTS}
    for key in ("vrl_transformation", "merge_logs_config", "when_full"):
        if block.get(key):
            sent[key] = block[key]
    if "merge_logs" in block:
        sent["merge_logs"] = block["merge_logs"]
    for key in (
        "disk_batch_size_mb",
        "memory_batch_size_mb",
        "buffer_max_events",
        "log_line_length_limit_kb",
    ):
        if block.get(key):
            sent[key] = block[key]
    for key in ("services_options", "namespaces_options"):
        if key in block:
            sent[key] = {
                name: {
                    "log_sampling": opt.get("log_sampling", 0),
                    "ingest_traces": opt.get("ingest_traces", False),
                }
                for name, opt in block[key].items()
            }
    return sent


EXAMPLES: dict[str, dict[str, Any]] = {
    # examples/resources/logtail_collector
    "production": {"name": "Production Docker", "platform": "docker"},
    "compliance": {
        "name": "Compliance Docker",
        "platform": "docker",
        "note": "Docker hosts with PII redaction for GDPR compliance",
        "data_region": "germany",
        "logs_retention": 30,
        "metrics_retention": 90,
        "source_group_id": GROUP,
        "live_tail_pattern": "{level} {message}",
        "configuration": configuration(
            {
                "vrl_transformation": 'if exists(.user_email) { .user_email = "[REDACTED]" }\n',
                "components": {
                    "logs_host": True,
                    "logs_docker": True,
                    "ebpf_metrics": True,
                    "ebpf_tracing_basic": True,
                },
                "merge_logs": True,
                "merge_logs_config": "match(string!(.message), r'^\\\\d{4}-\\\\d{2}-\\\\d{2}')",
                "buffer_max_events": 50000,
                "when_full": "block",
                "disk_batch_size_mb": 256,
                "memory_batch_size_mb": 10,
            }
        ),
        "source_vrl_transformation": '.environment = "production"\n.compliance_redacted = true\n',
    },
    "kubernetes": {
        "name": "Production Kubernetes",
        "platform": "kubernetes",
        "logs_retention": 30,
        "metrics_retention": 60,
        "configuration": configuration(
            {
                "logs_sample_rate": 100,
                "traces_sample_rate": 50,
                "log_line_length_limit_kb": 32,
                "buffer_max_events": 50000,
                "when_full": "block",
                "components": dict.fromkeys(
                    ["ebpf_metrics", "ebpf_red_metrics", "ebpf_tracing_full", "logs_kubernetes"],
                    True,
                ),
                "namespaces_options": {
                    "production": {"log_sampling": 100},
                    "staging": {"log_sampling": 50, "ingest_traces": True},
                },
                "services_options": {"payment-api": {"log_sampling": 100, "ingest_traces": True}},
            }
        ),
    },
    "swarm": {
        "name": "Production Swarm",
        "platform": "swarm",
        "ingesting_paused": True,
        "configuration": configuration(
            {"logs_sample_rate": 100, "components": {"logs_docker": True, "logs_host": True}}
        ),
    },
    "custom_sources": {
        "name": "Custom sources Docker",
        "platform": "docker",
        "user_vector_config": "sources:\n  better_stack_logs_custom_file:\n    type: file\n",
    },
    # acceptance tests: team_name and a custom bucket
    "bucket": {
        "name": "Bucketed",
        "platform": "docker",
        "team_name": "acme",
        "custom_bucket": {
            "endpoint": "https://my-bucket.s3.us-east-1.amazonaws.com",
            "access_key_id": "AKIAEXAMPLE",
            "secret_access_key": "example-secret",
            "keep_data_after_retention": False,
        },
    },
}
CHANGES: dict[str, dict[str, Any]] = {
    "production": {"note": "now with a note", "source_group_id": GROUP},
    "compliance": {"source_group_id": 0, "live_tail_pattern": "{dt} {message}"},
    "kubernetes": {
        "configuration": configuration(
            {"logs_sample_rate": 10, "services_options": {"api": {"log_sampling": 5}}}
        )
    },
    "swarm": {"ingesting_paused": False, "metrics_retention": 365},
    "custom_sources": {"user_vector_config": "", "source_vrl_transformation": ".a = 1\n"},
    "bucket": {"name": "Bucketed 2"},
}


def _resolved(config: dict[str, Any], group_id: int) -> dict[str, Any]:
    return {key: group_id if value == GROUP else value for key, value in config.items()}


def _state(sent: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value
        for key, value in sent.items()
        if key != "team_name" and not (key == "source_group_id" and value == 0)
    }


@pytest.mark.parametrize("example", EXAMPLES)
async def test_create_read_update_read(api: Api, example: str) -> None:
    group = int(data(await api.post(GROUPS, {"name": "Production sources"}), 201)["id"])
    sent = _resolved(EXAMPLES[example], group)
    created = data(await api.post(BASE, sent), 201)
    assert_reads_back(_state(sent), created["attributes"], write_only=WRITE_ONLY)
    url = f"{BASE}/{created['id']}"
    assert_reads_back(_state(sent), data(await api.get(url))["attributes"], write_only=WRITE_ONLY)

    change = _resolved(CHANGES[example], group)
    data(await api.patch(url, change))
    after = data(await api.get(url))["attributes"]
    assert_reads_back(_state({**sent, **change}), after, write_only=WRITE_ONLY)
    if change.get("source_group_id") == 0:
        assert after["source_group_id"] is None

    # the data source: ?name= lists that collector only
    data(await api.post(BASE, {"name": "Another", "platform": "docker"}), 201)
    name = change.get("name", sent["name"])
    listed = (await api.get(BASE, params={"name": name, "page": 1})).json()
    assert [row["id"] for row in listed["data"]] == [created["id"]]
    assert listed["pagination"]["next"] is None


async def test_bucket_secret_is_write_only_and_its_name_comes_from_the_endpoint(
    api: Api,
) -> None:
    created = data(await api.post(BASE, EXAMPLES["bucket"]), 201)["attributes"]
    assert created["custom_bucket"] == {
        "name": "my-bucket",
        "endpoint": "https://my-bucket.s3.us-east-1.amazonaws.com",
        "access_key_id": "AKIAEXAMPLE",
        "keep_data_after_retention": False,
    }
    assert "example-secret" not in str(created)


async def test_region_and_bucket_are_fixed_after_creation(api: Api) -> None:
    created = data(await api.post(BASE, EXAMPLES["bucket"] | {"data_region": "us_west"}), 201)
    url = f"{BASE}/{created['id']}"
    assert errors(await api.patch(url, {"data_region": "germany"}))[1] == ["data_region"]
    bucket = EXAMPLES["bucket"]["custom_bucket"]
    assert errors(await api.patch(url, {"custom_bucket": bucket}))[1] == ["custom_bucket"]


async def test_references_and_names_are_checked(api: Api, other_api: Api) -> None:
    foreign = data(await other_api.post(GROUPS, {"name": "theirs"}), 201)["id"]
    body = {"name": "c", "platform": "docker"}
    assert errors(await api.post(BASE, body | {"source_group_id": int(foreign)}))[1] == [
        "source_group_id"
    ]
    assert errors(await api.post(BASE, body | {"team_name": "globex"}))[1] == ["team_name"]
    assert errors(await api.post(BASE, body | {"hosts_counted": 1}))[1] == ["hosts_counted"]
    bad = {"configuration": {"logs_sample_rate": 101, "when_full": "explode"}}
    assert errors(await api.post(BASE, body | bad))[1] == ["configuration"]


async def test_deleting_the_source_group_ungroups_the_collector(api: Api) -> None:
    group = data(await api.post(GROUPS, {"name": "g"}), 201)["id"]
    created = data(await api.post(BASE, {"name": "c", "source_group_id": int(group)}), 201)
    assert (await api.delete(f"{GROUPS}/{group}")).status_code == 204
    shown = data(await api.get(f"{BASE}/{created['id']}"))["attributes"]
    assert shown["source_group_id"] is None


# examples/resources/logtail_collector_target (the kinds the specification lists)
TARGETS: list[dict[str, Any]] = [
    {
        "kind": "postgres",
        "host": "10.0.0.5",
        "port": 5432,
        "username": "monitor",
        "password": "example-rotate-me",
        "ssl_mode": "require",
    },
    {
        "kind": "mysql",
        "host": "10.0.0.7",
        "port": 3306,
        "username": "monitor",
        "password": "example-rotate-me",
        "tls": "skip-verify",
    },
    {
        "kind": "elasticsearch",
        "host": "10.0.0.6",
        "port": 9200,
        "scheme": "https",
        "api_key": "example-rotate-me",
    },
    {
        "kind": "postgres",
        "host": "replica.example.com",
        "port": 5432,
        "username": "monitor",
        "password": "example-rotate-me",
        "ssl_mode": "disable",
        "enabled": False,
    },
    # process kinds: the provider sends collector_host as `host`
    {
        "kind": "nginx",
        "host": "edge-1.internal",
        "service": "edge-nginx",
        "listen_ip": "127.0.0.1",
        "port": 80,
    },
    {
        "kind": "prometheus",
        "host": "app-1.internal",
        "service": "my-app",
        "endpoint": "http://10.0.0.5:9090/metrics",
    },
]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: f"{t['kind']}-{t['host']}")
async def test_collector_target_examples(api: Api, target: dict[str, Any]) -> None:
    collector = data(await api.post(BASE, EXAMPLES["production"]), 201)["id"]
    url = f"{BASE}/{collector}/targets"
    created = data(await api.post(url, target), 201)
    secrets = ("password", "api_key")
    assert_reads_back(target, created["attributes"], write_only=secrets)
    read = data(await api.get(f"{url}/{created['id']}"))["attributes"]
    assert_reads_back(target, read, write_only=secrets)
    # an update sends every configured field but kind (collectorTargetBuildRequest)
    changed = {key: value for key, value in target.items() if key != "kind"}
    if "port" in changed:
        changed["port"] += 1
    data(await api.patch(f"{url}/{created['id']}", changed))
    read = data(await api.get(f"{url}/{created['id']}"))["attributes"]
    assert_reads_back(changed, read, write_only=secrets)


@pytest.mark.parametrize("kind", ["pgbouncer", "traefik"])
async def test_target_kinds_beyond_the_specifications_ten_stay_refused(api: Api, kind: str) -> None:
    collector = data(await api.post(BASE, EXAMPLES["production"]), 201)["id"]
    body = {"kind": kind, "host": "10.0.0.5", "port": 6432}
    assert errors(await api.post(f"{BASE}/{collector}/targets", body))[1] == ["kind"]


async def test_deprecated_databases_block(api: Api) -> None:
    """The provider's `databases` blocks: created with the collector, read back from
    /databases (password never shown), changed by position with ids, removed with _destroy."""
    first = {
        "service_type": "postgres",
        "host": "10.0.0.5",
        "port": 5432,
        "username": "monitor",
        "password": "example-rotate-me",
        "ssl_mode": "disable",
    }
    second = {"service_type": "redis", "host": "10.0.0.8", "port": 6379}
    body = {"name": "With databases", "platform": "docker", "databases": [first, second]}
    created = data(await api.post(BASE, body), 201)
    url = f"{BASE}/{created['id']}/databases"
    listed = (await api.get(url)).json()["data"]
    assert [row["type"] for row in listed] == ["collector_database"] * 2
    for sent, row in zip((first, second), listed, strict=True):
        assert_reads_back(sent, row["attributes"], write_only=("password",))
        assert "password" not in row["attributes"]
    # the targets they are
    targets = (await api.get(f"{BASE}/{created['id']}/targets")).json()["data"]
    assert [row["attributes"]["kind"] for row in targets] == ["postgres", "redis"]

    # computeDatabasesDelta: the first kept (its id, the password from the state), the
    # second replaced by a mysql one, the old second destroyed.
    first_id, second_id = (int(row["id"]) for row in listed)
    third = {"service_type": "mysql", "host": "10.0.0.7", "port": 3306, "tls": "true"}
    delta = [
        {**first, "id": first_id, "port": 5433},
        {**third, "id": second_id},
        {"id": second_id, "_destroy": True},
    ]
    response = await api.patch(f"{BASE}/{created['id']}", {"databases": delta})
    # a target's kind never changes: the provider's position match asks for it here
    assert errors(response)[1] == ["databases"]
    unchanged = (await api.get(url)).json()["data"]  # nothing of the refused PATCH stays
    assert [row["attributes"]["port"] for row in unchanged] == [5432, 6379]
    delta = [{**first, "id": first_id, "port": 5433}, {"id": second_id, "_destroy": True}, third]
    data(await api.patch(f"{BASE}/{created['id']}", {"databases": delta}))
    listed = (await api.get(url)).json()["data"]
    assert [row["attributes"]["service_type"] for row in listed] == ["postgres", "mysql"]
    assert listed[0]["id"] == str(first_id)
    assert listed[0]["attributes"]["port"] == 5433
    assert_reads_back(third, listed[1]["attributes"])

    foreign = {"name": "x", "databases": [{"service_type": "postgres", "host": "h"}]}
    assert errors(await api.post(BASE, foreign))[1] == ["databases"]  # port and more missing
    assert (await api.get(BASE, params={"name": "x"})).json()["data"] == []
