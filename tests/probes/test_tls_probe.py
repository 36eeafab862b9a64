"""ssl_expiration against a real TLS server (uvicorn) with a certificate of known notAfter."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.factories.monitor_servers import http_server, self_signed
from tests.factories.servers import SHORT_TIMEOUT, TIMEOUT, free_port, silent_server
from watchpost.probes.monitors import certificate
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.monitors.registry import extra_probes


def tls_server(folder: Path, days: float) -> Iterator[int]:
    not_after = dt.datetime.now(dt.UTC) + dt.timedelta(days=days)
    certfile, keyfile = self_signed(folder, not_after=not_after)
    with http_server(certfile, keyfile) as port:
        yield port


@pytest.fixture(scope="module")
def ten_days(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """notAfter ten days and one hour from now."""
    yield from tls_server(tmp_path_factory.mktemp("ten"), 10 + 1 / 24)


@pytest.fixture(scope="module")
def expired(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    yield from tls_server(tmp_path_factory.mktemp("expired"), -3.5)


def monitor(port: int, days: int | None) -> MonitorCheck:
    return MonitorCheck(
        monitor_type="status", url=f"https://127.0.0.1:{port}/", ssl_expiration=days
    )


async def test_days_left_above_the_threshold(ten_days: int) -> None:
    result = await certificate.ssl_expiration(monitor(ten_days, 7), timeout=TIMEOUT)
    assert result.ok, result.error
    assert math.floor(result.metrics["ssl_days_left"]) == 10


async def test_fewer_days_than_the_threshold(ten_days: int) -> None:
    result = await certificate.ssl_expiration(monitor(ten_days, 14), timeout=TIMEOUT)
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith("certificate expires in 10 days (")
    assert result.error.endswith("), less than 14")
    assert math.floor(result.metrics["ssl_days_left"]) == 10


async def test_expired_certificate(expired: int) -> None:
    result = await certificate.ssl_expiration(monitor(expired, 1), timeout=TIMEOUT)
    assert result.error is not None
    assert result.error.startswith("certificate expired 3 days ago (")
    assert result.metrics["ssl_days_left"] < -3


async def test_port_field_and_host_name(ten_days: int) -> None:
    settings = MonitorCheck(
        monitor_type="tcp", url="localhost", port=str(ten_days), ssl_expiration=7
    )
    assert (await certificate.ssl_expiration(settings, timeout=TIMEOUT)).ok


async def test_not_tls() -> None:
    async with silent_server() as port:
        result = await certificate.ssl_expiration(monitor(port, 7), timeout=SHORT_TIMEOUT)
    assert result.error == (
        f"timed out after {SHORT_TIMEOUT:g}s waiting for the TLS handshake with 127.0.0.1:{port}"
    )


async def test_refused() -> None:
    port = free_port()
    result = await certificate.ssl_expiration(monitor(port, 7), timeout=TIMEOUT)
    assert result.error == f"connection refused by 127.0.0.1:{port}"


def test_extra_probes_only_when_asked() -> None:
    plain = MonitorCheck(monitor_type="status", url="https://example.com/")
    assert extra_probes(plain) == {}
    both = MonitorCheck(
        monitor_type="status", url="https://example.com/", ssl_expiration=7, domain_expiration=30
    )
    assert set(extra_probes(both)) == {"ssl_expiration", "domain_expiration"}
    assert extra_probes(both)["ssl_expiration"] is certificate.ssl_expiration
