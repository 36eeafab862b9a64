"""Ping probe: a real ICMP echo to 127.0.0.1, and the configuration error when no ICMP socket
may be opened (forced here by making socket creation fail with a monkeypatch)."""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest

from tests.factories.servers import TIMEOUT, unavailable
from watchpost.probes.monitors import ping
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.monitors.registry import PROBES


def _icmp_allowed() -> str | None:
    try:
        sock, _ = ping.open_socket(socket.AF_INET)
    except Exception as exc:
        return str(exc)
    sock.close()
    return None


async def test_ping_localhost() -> None:
    reason = _icmp_allowed()
    if reason is not None:
        unavailable(f"this process may not send ICMP echo requests: {reason}")
    result = await PROBES["ping"](
        MonitorCheck(monitor_type="ping", url="127.0.0.1"), timeout=TIMEOUT
    )
    assert result.ok, result.error
    assert result.metrics["rtt_ms"] == result.latency_ms
    assert result.details["address"] == "127.0.0.1"
    assert result.details["socket"] in ("raw", "datagram")


async def test_no_icmp_socket_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> socket.socket:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(socket, "socket", refuse)
    result = await PROBES["ping"](
        MonitorCheck(monitor_type="ping", url="127.0.0.1"), timeout=TIMEOUT
    )
    assert result.error == (
        f"ping needs net.ipv4.ping_group_range to include gid {os.getgid()} or CAP_NET_RAW"
    )


async def test_unknown_host() -> None:
    result = await PROBES["ping"](
        MonitorCheck(monitor_type="ping", url="no-such-host.invalid"), timeout=TIMEOUT
    )
    assert result.error is not None and result.error.startswith("cannot resolve host")


def test_checksum_of_a_known_packet() -> None:
    # Echo request, id 0x1234, seq 1, payload "abcd": checksum computed by hand (RFC 1071).
    packet = ping._echo_request(socket.AF_INET, 0x1234, b"abcd")
    assert ping._checksum(packet) == 0
