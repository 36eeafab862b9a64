"""nginx and apache probes against the servers scripts/ci-services starts.

nginx: 127.0.0.1:18080 with stub_status at /nginx_status (ci/nginx.conf); apache:
127.0.0.1:18081 with mod_status at /server-status (ci/apache2.conf).
"""

from __future__ import annotations

import pytest

from tests.factories.servers import (
    APACHE,
    NGINX,
    SHORT_TIMEOUT,
    TIMEOUT,
    free_port,
    http_server,
    require_tcp,
    silent_server,
)
from watchpost.probes.base import Probe
from watchpost.probes.targets import apache, nginx
from watchpost.probes.targets.settings import TargetSettings

PROBES: dict[str, Probe[TargetSettings]] = {"nginx": nginx.probe, "apache": apache.probe}


def target(kind: str, port: int, **changes: object) -> TargetSettings:
    fields: dict[str, object] = {"kind": kind, "host": "127.0.0.1", "port": port, "service": "web"}
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


async def test_nginx_reads_stub_status() -> None:
    require_tcp("nginx", NGINX)
    result = await nginx.probe(target("nginx", NGINX[1]), timeout=TIMEOUT)
    assert result.ok, result.error
    assert set(result.metrics) == {
        "active",
        "accepts",
        "handled",
        "requests",
        "reading",
        "writing",
        "waiting",
    }
    assert result.metrics["active"] >= 1 and result.metrics["requests"] >= 1
    assert result.details["url"] == "http://127.0.0.1:18080/nginx_status"


async def test_nginx_connects_to_listen_ip_rather_than_host() -> None:
    require_tcp("nginx", NGINX)
    settings = target("nginx", NGINX[1], host="no-such-host.invalid", listen_ip="127.0.0.1")
    result = await nginx.probe(settings, timeout=TIMEOUT)
    assert result.ok, result.error


async def test_apache_reads_server_status() -> None:
    require_tcp("apache2", APACHE)
    result = await apache.probe(target("apache", APACHE[1]), timeout=TIMEOUT)
    assert result.ok, result.error
    for name in ("total_accesses", "busy_workers", "idle_workers", "req_per_sec", "uptime"):
        assert result.metrics[name] >= 0, name
    assert result.metrics["busy_workers"] >= 1
    assert result.details["server_version"].startswith("Apache")


async def test_a_page_without_status_is_a_failure() -> None:
    require_tcp("nginx", NGINX)
    require_tcp("apache2", APACHE)
    wrong = await nginx.probe(target("nginx", APACHE[1]), timeout=TIMEOUT)
    assert not wrong.ok
    assert wrong.error == "/nginx_status on 127.0.0.1:18081 answered HTTP 404"
    wrong = await apache.probe(target("apache", NGINX[1]), timeout=TIMEOUT)
    assert not wrong.ok
    assert wrong.error == "/server-status?auto on 127.0.0.1:18080 answered HTTP 404"


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("nginx", "/nginx_status on 127.0.0.1:{port} is not an nginx stub_status page"),
        ("apache", "/server-status on 127.0.0.1:{port} is not an Apache mod_status page"),
    ],
)
async def test_an_unrelated_page_is_a_failure(kind: str, error: str) -> None:
    async with http_server(lambda target, headers: (200, "text/html", "<html>hi</html>")) as port:
        result = await PROBES[kind](target(kind, port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == error.format(port=port)


@pytest.mark.parametrize("kind", ["nginx", "apache"])
async def test_a_closed_port_is_refused(kind: str) -> None:
    port = free_port()
    result = await PROBES[kind](target(kind, port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


@pytest.mark.parametrize("kind", ["nginx", "apache"])
async def test_a_silent_server_times_out(kind: str) -> None:
    async with silent_server() as port:
        result = await PROBES[kind](target(kind, port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error == f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}"
