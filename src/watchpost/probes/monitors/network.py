"""TCP and UDP monitors: a port accepts connections; a UDP service answers a datagram."""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING

from watchpost import outbound
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.errors import describe
from watchpost.probes.monitors.common import ConfigError, network_failure, target, timed_out

if TYPE_CHECKING:
    from watchpost.probes.monitors.check import MonitorCheck


async def tcp(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Opens a TCP connection to host:port and closes it."""
    watch = Stopwatch()
    try:
        where = target(settings, None)
    except ConfigError as exc:
        return failure(watch, str(exc))
    try:
        async with asyncio.timeout(timeout):
            _, writer = await outbound.open_connection(where.host, where.port)
    except OSError as exc:
        return network_failure(watch, exc, where, timeout=timeout, doing=f"connecting to {where}")
    latency = watch.ms()
    writer.close()
    return ProbeResult(ok=True, latency_ms=latency)


class _Reply(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.replies: asyncio.Queue[bytes | Exception] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: tuple[str | object, ...]) -> None:
        self.replies.put_nowait(data)

    def error_received(self, exc: Exception) -> None:
        self.replies.put_nowait(exc)


async def udp(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Sends request_body; passes when a reply holds required_keyword (any reply without one)."""
    watch = Stopwatch()
    try:
        where = target(settings, None)
    except ConfigError as exc:
        return failure(watch, str(exc))
    keyword = (settings.required_keyword or "").encode()
    loop = asyncio.get_running_loop()
    transport: asyncio.DatagramTransport | None = None
    replied = False
    try:
        async with asyncio.timeout(timeout):
            infos = await outbound.resolve(where.host, where.port, kind=socket.SOCK_DGRAM)
            transport, protocol = await loop.create_datagram_endpoint(
                _Reply, remote_addr=outbound.udp_address(infos)
            )
            transport.sendto((settings.request_body or "").encode())
            while True:
                reply = await protocol.replies.get()
                if isinstance(reply, Exception):
                    raise reply
                if keyword in reply:
                    return ProbeResult(
                        ok=True, latency_ms=watch.ms(), metrics={"reply_bytes": float(len(reply))}
                    )
                replied = True
    except TimeoutError:
        if replied:
            return failure(watch, f"keyword {settings.required_keyword!r} not found in the reply")
        return failure(watch, f"{timed_out(timeout)} waiting for a UDP reply from {where}")
    except ConnectionRefusedError:
        return failure(watch, f"port unreachable: nothing listens on UDP {where}")
    except OSError as exc:
        return failure(watch, describe(exc, where))
    finally:
        if transport is not None:
            transport.close()
