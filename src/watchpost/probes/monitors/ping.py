"""Ping monitors: one ICMP echo request, latency from its reply.

An unprivileged ICMP socket (SOCK_DGRAM) is used where net.ipv4.ping_group_range allows the
process's group; else a raw socket when the process may open one (root or CAP_NET_RAW); else
the result says how to allow it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import struct
import time
from typing import TYPE_CHECKING

from watchpost import outbound
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.monitors.common import ConfigError, network_failure, target

if TYPE_CHECKING:
    from watchpost.probes.monitors.check import MonitorCheck

_ECHO = {socket.AF_INET: (8, 0), socket.AF_INET6: (128, 129)}  # (request, reply) types
_PROTOCOL = {socket.AF_INET: socket.IPPROTO_ICMP, socket.AF_INET6: socket.IPPROTO_ICMPV6}


def permission_hint() -> str:
    return f"ping needs net.ipv4.ping_group_range to include gid {os.getgid()} or CAP_NET_RAW"


def open_socket(family: socket.AddressFamily) -> tuple[socket.socket, bool]:
    """An ICMP socket and whether it is raw; ConfigError when neither kind is allowed."""
    try:
        return socket.socket(family, socket.SOCK_DGRAM, _PROTOCOL[family]), False
    except OSError:
        pass
    try:
        return socket.socket(family, socket.SOCK_RAW, _PROTOCOL[family]), True
    except PermissionError:
        raise ConfigError(permission_hint()) from None


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    result: int = ~total & 0xFFFF
    return result


def _echo_request(family: socket.AddressFamily, ident: int, payload: bytes) -> bytes:
    kind = _ECHO[family][0]
    header = struct.pack("!BBHHH", kind, 0, 0, ident, 1)
    if family == socket.AF_INET6:  # the kernel fills in the ICMPv6 checksum
        return header + payload
    return struct.pack("!BBHHH", kind, 0, _checksum(header + payload), ident, 1) + payload


def _is_our_reply(
    packet: bytes, family: socket.AddressFamily, raw: bool, ident: int, payload: bytes
) -> bool:
    if raw and family == socket.AF_INET:
        packet = packet[(packet[0] & 0x0F) * 4 :]  # a raw IPv4 socket hands the IP header too
    if len(packet) < 8:
        return False
    kind, _, _, reply_ident, _ = struct.unpack("!BBHHH", packet[:8])
    # A datagram socket's identifier is chosen by the kernel, which also filters replies.
    return kind == _ECHO[family][1] and packet[8:] == payload and (not raw or reply_ident == ident)


async def ping(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Sends one echo request to the host of url and waits for its reply."""
    watch = Stopwatch()
    loop = asyncio.get_running_loop()
    sock: socket.socket | None = None
    try:
        where = target(settings, 0)
        async with asyncio.timeout(timeout):
            infos = await outbound.resolve(where.host, 0, kind=socket.SOCK_DGRAM)
            family, address = socket.AddressFamily(infos[0][0]), infos[0][4]
            sock, raw = open_socket(family)
            sock.setblocking(False)
            ident, payload = secrets.randbits(16), secrets.token_bytes(16)
            sent = time.perf_counter()
            await loop.sock_sendto(sock, _echo_request(family, ident, payload), address)
            while not _is_our_reply(await loop.sock_recv(sock, 65535), family, raw, ident, payload):
                pass
            rtt = (time.perf_counter() - sent) * 1000.0
    except ConfigError as exc:
        return failure(watch, str(exc))
    except OSError as exc:
        doing = f"waiting for an echo reply from {settings.url}"
        return network_failure(watch, exc, where, timeout=timeout, doing=doing)
    finally:
        if sock is not None:
            sock.close()
    return ProbeResult(
        ok=True,
        latency_ms=rtt,
        metrics={"rtt_ms": rtt},
        details={"address": str(address[0]), "socket": "raw" if raw else "datagram"},
    )
