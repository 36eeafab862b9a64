"""Prometheus probe against an endpoint the test serves with prometheus_client."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server

from tests.factories.servers import TIMEOUT, free_port, http_server
from watchpost.probes.targets.prometheus import probe
from watchpost.probes.targets.settings import TargetSettings


def target(endpoint: str) -> TargetSettings:
    return TargetSettings(kind="prometheus", host="127.0.0.1", service="app", endpoint=endpoint)


@pytest.fixture
def exporter() -> Iterator[str]:
    """prometheus_client's own HTTP server exposing a counter and a gauge."""
    registry = CollectorRegistry()
    Counter("jobs_done", "Jobs done.", registry=registry).inc(3)
    Gauge("queue_depth", "Queue depth.", registry=registry).set(7)
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    try:
        yield f"http://127.0.0.1:{server.server_port}/metrics"
    finally:
        server.shutdown()
        server.server_close()
        assert isinstance(thread, threading.Thread)
        thread.join()


async def test_counts_families_and_samples(exporter: str) -> None:
    result = await probe(target(exporter), timeout=TIMEOUT)
    assert result.ok, result.error
    # The text format shows the counter's _created sample as a family of its own.
    assert result.metrics == {"families": 3.0, "samples": 3.0}


async def test_a_body_that_does_not_parse_is_a_failure() -> None:
    body = "<html><body>Not metrics</body></html>"
    async with http_server(lambda path, headers: (200, "text/html", body)) as port:
        url = f"http://127.0.0.1:{port}/metrics"
        result = await probe(target(url), timeout=TIMEOUT)
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith(f"{url} is not in the Prometheus text format")


async def test_an_empty_scrape_is_a_failure() -> None:
    async with http_server(lambda path, headers: (200, "text/plain", "")) as port:
        url = f"http://127.0.0.1:{port}/metrics"
        result = await probe(target(url), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"{url} answered with no metrics"


async def test_an_error_status_is_a_failure() -> None:
    async with http_server(lambda path, headers: (500, "text/plain", "boom")) as port:
        result = await probe(target(f"http://127.0.0.1:{port}/metrics"), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"/metrics on 127.0.0.1:{port} answered HTTP 500"


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(f"http://127.0.0.1:{port}/metrics"), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"
