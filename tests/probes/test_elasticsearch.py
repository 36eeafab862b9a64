"""Elasticsearch probe against an in-test HTTP server answering /_cluster/health with JSON.

No Elasticsearch server can be installed here; the in-test server answers exactly the
request the probe sends, with the shape Elasticsearch documents for the health API.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.factories.api import TEST_API_KEY, TEST_PASSWORD
from tests.factories.servers import SHORT_TIMEOUT, TIMEOUT, free_port, http_server, silent_server
from watchpost.probes.targets.elasticsearch import probe
from watchpost.probes.targets.settings import TargetSettings


def target(port: int, **changes: object) -> TargetSettings:
    fields: dict[str, object] = {"kind": "elasticsearch", "host": "127.0.0.1", "port": port}
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


def health(status: str) -> dict[str, Any]:
    return {
        "cluster_name": "search",
        "status": status,
        "timed_out": False,
        "number_of_nodes": 3,
        "number_of_data_nodes": 2,
        "active_primary_shards": 5,
        "active_shards": 10,
        "relocating_shards": 0,
        "initializing_shards": 0,
        "unassigned_shards": 0 if status == "green" else 4,
    }


class Cluster:
    """Answers GET /_cluster/health; remembers each request's headers."""

    def __init__(self, status: str = "green", require: str | None = None) -> None:
        self.status = status
        self.require = require
        self.seen: list[dict[str, str]] = []

    def __call__(self, path: str, headers: dict[str, str]) -> tuple[int, str, str]:
        self.seen.append(headers)
        if path != "/_cluster/health":
            return 404, "application/json", "{}"
        if self.require is not None and headers.get("authorization") != self.require:
            return 401, "application/json", json.dumps({"error": "security_exception"})
        code = 503 if self.status == "red" else 200
        return code, "application/json", json.dumps(health(self.status))


async def test_green_and_yellow_pass_with_metrics() -> None:
    for status in ("green", "yellow"):
        async with http_server(Cluster(status)) as port:
            result = await probe(target(port), timeout=TIMEOUT)
        assert result.ok, result.error
        assert result.metrics["number_of_nodes"] == 3
        assert result.metrics["active_shards"] == 10
        assert result.details["cluster_status"] == status


async def test_red_fails_with_the_reason() -> None:
    async with http_server(Cluster("red")) as port:
        result = await probe(target(port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == "cluster search is red (4 unassigned shards)"


async def test_basic_auth_is_sent() -> None:
    expected = "Basic " + base64.b64encode(f"elastic:{TEST_PASSWORD}".encode()).decode()
    async with http_server(Cluster(require=expected)) as port:
        result = await probe(
            target(port, username="elastic", password=TEST_PASSWORD), timeout=TIMEOUT
        )
    assert result.ok, result.error


async def test_an_api_key_is_sent() -> None:
    async with http_server(Cluster(require=f"ApiKey {TEST_API_KEY}")) as port:
        result = await probe(target(port, api_key=TEST_API_KEY), timeout=TIMEOUT)
    assert result.ok, result.error


async def test_wrong_credentials_fail_without_echoing_them() -> None:
    async with http_server(Cluster(require="ApiKey something-else")) as port:
        result = await probe(target(port, api_key=TEST_API_KEY), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"authentication failed: 127.0.0.1:{port} answered HTTP 401"


async def test_https_against_a_plain_server_is_a_tls_failure() -> None:
    async with http_server(Cluster()) as port:
        result = await probe(target(port, scheme="https"), timeout=TIMEOUT)
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith(f"TLS handshake with 127.0.0.1:{port} failed")


async def test_an_answer_that_is_not_health_is_a_failure() -> None:
    async with http_server(lambda path, headers: (200, "text/html", "<html></html>")) as port:
        result = await probe(target(port), timeout=TIMEOUT)
    assert not result.ok
    assert (
        result.error == f"/_cluster/health on 127.0.0.1:{port} did not answer with cluster health"
    )


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_a_silent_server_times_out() -> None:
    async with silent_server() as port:
        result = await probe(target(port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error == f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}"
