"""DNS monitor probes against dnsmasq on 127.0.0.1:15353 (scripts/ci-services-monitors)."""

from __future__ import annotations

import asyncio

import pytest

from tests.factories.monitor_servers import DNSMASQ, require_dnsmasq
from tests.factories.servers import SHORT_TIMEOUT, TIMEOUT
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.monitors.registry import PROBES


@pytest.fixture(autouse=True)
def dnsmasq() -> None:
    require_dnsmasq()


def monitor(name: str, **fields: object) -> MonitorCheck:
    return MonitorCheck(
        monitor_type="dns",
        url=DNSMASQ[0],
        port=str(DNSMASQ[1]),
        request_body=name,
        **fields,  # type: ignore[arg-type]
    )


async def test_name_with_both_records() -> None:
    result = await PROBES["dns"](monitor("ok.watchpost.test"), timeout=TIMEOUT)
    assert result.ok, result.error
    assert result.metrics["records"] == 2
    assert result.details["addresses"] == "192.0.2.10, 2001:db8::10"


@pytest.mark.parametrize("name", ["v4only.watchpost.test", "v6only.watchpost.test"])
async def test_one_family_is_enough(name: str) -> None:
    result = await PROBES["dns"](monitor(name), timeout=TIMEOUT)
    assert result.ok, result.error
    assert result.metrics["records"] == 1


async def test_nxdomain() -> None:
    result = await PROBES["dns"](monitor("missing.watchpost.test"), timeout=TIMEOUT)
    assert result.error == (
        "NXDOMAIN: missing.watchpost.test does not exist (DNS server 127.0.0.1:15353)"
    )


async def test_server_that_never_answers() -> None:
    transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
        asyncio.DatagramProtocol, local_addr=("127.0.0.1", 0)
    )
    port = transport.get_extra_info("sockname")[1]
    try:
        settings = MonitorCheck(
            monitor_type="dns", url="127.0.0.1", port=str(port), request_body="ok.watchpost.test"
        )
        result = await PROBES["dns"](settings, timeout=SHORT_TIMEOUT)
    finally:
        transport.close()
    assert (
        result.error
        == f"timed out after {SHORT_TIMEOUT:g}s waiting for DNS server 127.0.0.1:{port}"
    )


async def test_name_is_required() -> None:
    result = await PROBES["dns"](monitor(""), timeout=TIMEOUT)
    assert result.error == "request_body must hold the domain name to resolve"
