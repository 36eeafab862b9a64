"""memcached: the text protocol's `stats` over a plain TCP stream.

With a username and password, the client first authenticates the way memcached's text
protocol does (memcached -Y): a `set` whose data is "<username> <password>".
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Final

from watchpost import outbound
from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import Address
from watchpost.probes.targets.common import CheckFailed, Reading, run_check

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 11211
STATS_METRICS: Final = (
    "curr_connections",
    "cmd_get",
    "cmd_set",
    "get_hits",
    "get_misses",
    "bytes",
    "curr_items",
    "evictions",
    "uptime",
)


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = Address(settings.host, settings.port or DEFAULT_PORT)

    async def check() -> Reading:
        reader, writer = await outbound.open_connection(settings.host, address.port)
        try:
            if settings.username or settings.password:
                await _authenticate(reader, writer, settings, address)
            writer.write(b"stats\r\n")
            stats = await _read_stats(reader, address)
        finally:
            writer.close()
        metrics = {
            name: float(stats[name]) for name in STATS_METRICS if stats.get(name, "").isdigit()
        }
        return Reading(metrics=metrics, details={"server_version": stats.get("version", "")})

    return await run_check(settings, timeout=timeout, address=address, check=check)


async def _authenticate(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    settings: TargetSettings,
    address: Address,
) -> None:
    token = f"{settings.username or ''} {settings.password or ''}".encode()
    writer.write(b"set auth 0 0 %d\r\n%b\r\n" % (len(token), token))
    answer = (await reader.readline()).strip()
    if answer != b"STORED":
        raise CheckFailed(f"authentication failed for user {settings.username} on {address}")


async def _read_stats(reader: asyncio.StreamReader, address: Address) -> dict[str, str]:
    stats: dict[str, str] = {}
    while True:
        line = await reader.readline()
        if not line:
            raise CheckFailed(f"connection closed by {address} before `stats` was answered")
        text = line.decode("utf-8", "replace").strip()
        if text == "END":
            return stats
        parts = text.split(" ", 2)
        if len(parts) == 3 and parts[0] == "STAT":
            stats[parts[1]] = parts[2]
        elif text.startswith(("ERROR", "CLIENT_ERROR", "SERVER_ERROR")):
            if "auth" in text.lower():
                raise CheckFailed(f"authentication failed: {address} requires credentials")
            raise CheckFailed(f"memcached at {address} refused `stats`: {text}")
        else:
            raise CheckFailed(f"{address} does not speak the memcached protocol")
