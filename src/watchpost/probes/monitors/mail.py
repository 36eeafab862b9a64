"""SMTP, POP3 and IMAP monitors: the server greets with its banner.

Implicit TLS on the TLS ports (SMTPS 465, POP3S 995, IMAPS 993), plain text elsewhere; the
certificate is verified unless verify_ssl is off. After the banner the probe says goodbye
(QUIT / LOGOUT) rather than dropping the connection.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from watchpost import outbound
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.errors import Address
from watchpost.probes.monitors.common import ConfigError, network_failure, target

if TYPE_CHECKING:
    from watchpost.probes.monitors.check import MonitorCheck

BANNER_LIMIT = 4096


@dataclass(frozen=True)
class Protocol:
    name: str
    default_port: int
    tls_ports: frozenset[int]
    greetings: tuple[bytes, ...]
    goodbye: bytes


SMTP = Protocol("SMTP", 25, frozenset({465}), (b"220",), b"QUIT\r\n")
POP = Protocol("POP3", 110, frozenset({995}), (b"+OK",), b"QUIT\r\n")
IMAP = Protocol("IMAP", 143, frozenset({993}), (b"* OK", b"* PREAUTH"), b"a1 LOGOUT\r\n")


@functools.cache
def _tls_context(verify: bool) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


async def _banner(reader: asyncio.StreamReader, protocol: Protocol) -> str:
    """The greeting; SMTP's may span lines ("220-…" until "220 …")."""
    lines: list[bytes] = []
    while sum(len(line) for line in lines) < BANNER_LIMIT:
        line = await reader.readline()
        if not line:
            break
        lines.append(line.rstrip(b"\r\n"))
        if protocol is not SMTP or line[3:4] != b"-":
            break
    return b"\n".join(lines).decode("utf-8", errors="replace")


async def _check(settings: MonitorCheck, timeout: float, protocol: Protocol) -> ProbeResult:
    watch = Stopwatch()
    try:
        where: Address = target(settings, protocol.default_port)
    except ConfigError as exc:
        return failure(watch, str(exc))
    tls = where.port in protocol.tls_ports
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await outbound.open_connection(
                where.host,
                where.port,
                ssl=_tls_context(settings.verify_ssl) if tls else None,
                server_hostname=where.host if tls else None,
            )
            try:
                banner = await _banner(reader, protocol)
                latency = watch.ms()
                if banner.encode().startswith(protocol.greetings):
                    writer.write(protocol.goodbye)
                    with suppress(OSError):
                        await writer.drain()
            finally:
                writer.close()
                with suppress(OSError, ssl.SSLError):
                    await writer.wait_closed()
    except (OSError, asyncio.IncompleteReadError) as exc:
        doing = f"waiting for the {protocol.name} banner"
        return network_failure(watch, exc, where, timeout=timeout, doing=doing)
    first = banner.splitlines()[-1][:200] if banner else ""
    if not banner:
        return failure(watch, f"{where} closed the connection without a {protocol.name} banner")
    if not banner.encode().startswith(protocol.greetings):
        return failure(watch, f"unexpected {protocol.name} banner: {first}", banner=first)
    return ProbeResult(
        ok=True, latency_ms=latency, details={"banner": first, "tls": "true" if tls else "false"}
    )


async def smtp(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    return await _check(settings, timeout, SMTP)


async def pop(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    return await _check(settings, timeout, POP)


async def imap(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    return await _check(settings, timeout, IMAP)
