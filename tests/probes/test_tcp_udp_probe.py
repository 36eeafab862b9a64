"""TCP and UDP monitor probes against servers run by the test on loopback."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import cast

import pytest

from tests.factories.servers import (
    SHORT_TIMEOUT,
    TIMEOUT,
    free_port,
    ipv6_loopback,
    silent_server,
)
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.monitors.registry import PROBES


def monitor(monitor_type: str, port: int, **fields: object) -> MonitorCheck:
    return MonitorCheck(monitor_type=monitor_type, url="127.0.0.1", port=str(port), **fields)  # type: ignore[arg-type]


async def test_tcp_connects() -> None:
    async with silent_server() as port:
        result = await PROBES["tcp"](monitor("tcp", port), timeout=TIMEOUT)
    assert result.ok, result.error


async def test_tcp_refused() -> None:
    port = free_port()
    result = await PROBES["tcp"](monitor("tcp", port), timeout=TIMEOUT)
    assert result.error == f"connection refused by 127.0.0.1:{port}"


async def test_tcp_timeout_when_the_backlog_is_full() -> None:
    """A listener that never accepts, its backlog filled: new SYNs are dropped, connect hangs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    try:
        result = await PROBES["tcp"](monitor("tcp", port), timeout=SHORT_TIMEOUT)
    finally:
        for filler in fillers:
            filler.close()
        listener.close()
    assert result.error == f"timed out after {SHORT_TIMEOUT:g}s connecting to 127.0.0.1:{port}"


async def test_tcp_needs_a_port() -> None:
    result = await PROBES["tcp"](MonitorCheck(monitor_type="tcp", url="127.0.0.1"), timeout=TIMEOUT)
    assert result.error == "a port is required for tcp monitors"
    bad = await PROBES["tcp"](
        MonitorCheck(monitor_type="tcp", url="127.0.0.1", port="http"), timeout=TIMEOUT
    )
    assert bad.error == "invalid port 'http'"


class _Echo(asyncio.DatagramProtocol):
    """Answers every datagram with 'pong: ' + the datagram."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | object, ...]) -> None:
        self.transport.sendto(b"pong: " + data, addr)


@asynccontextmanager
async def udp_server(protocol: type[asyncio.DatagramProtocol]) -> AsyncIterator[int]:
    transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
        protocol, local_addr=("127.0.0.1", 0)
    )
    try:
        yield transport.get_extra_info("sockname")[1]
    finally:
        transport.close()


async def test_udp_reply_with_the_keyword() -> None:
    async with udp_server(_Echo) as port:
        settings = monitor("udp", port, request_body="ping", required_keyword="pong")
        result = await PROBES["udp"](settings, timeout=TIMEOUT)
    assert result.ok, result.error
    assert result.metrics["reply_bytes"] == len(b"pong: ping")


async def test_udp_reply_without_the_keyword() -> None:
    async with udp_server(_Echo) as port:
        settings = monitor("udp", port, request_body="ping", required_keyword="healthy")
        result = await PROBES["udp"](settings, timeout=SHORT_TIMEOUT)
    assert result.error == "keyword 'healthy' not found in the reply"


async def test_udp_silent_server_times_out() -> None:
    async with udp_server(asyncio.DatagramProtocol) as port:
        result = await PROBES["udp"](
            monitor("udp", port, request_body="ping"), timeout=SHORT_TIMEOUT
        )
    assert result.error == (
        f"timed out after {SHORT_TIMEOUT:g}s waiting for a UDP reply from 127.0.0.1:{port}"
    )


async def test_udp_closed_port() -> None:
    port = free_port()
    result = await PROBES["udp"](monitor("udp", port, request_body="ping"), timeout=TIMEOUT)
    assert result.error == f"port unreachable: nothing listens on UDP 127.0.0.1:{port}"


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine")
@pytest.mark.parametrize("url", ["::1", "[::1]"])
async def test_tcp_connects_to_an_ipv6_address_with_or_without_brackets(url: str) -> None:
    async with silent_server("::1") as port:
        check = MonitorCheck(monitor_type="tcp", url=url, port=str(port))
        result = await PROBES["tcp"](check, timeout=TIMEOUT)
    assert result.ok, result.error
    refused = free_port()
    check = MonitorCheck(monitor_type="tcp", url=url, port=str(refused))
    result = await PROBES["tcp"](check, timeout=TIMEOUT)
    assert result.error == f"connection refused by [::1]:{refused}"
