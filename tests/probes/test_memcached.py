"""memcached probe against the server scripts/ci-services starts (127.0.0.1:11211)."""

from __future__ import annotations

import asyncio

from tests.factories.api import TEST_PASSWORD
from tests.factories.servers import (
    MEMCACHED,
    SHORT_TIMEOUT,
    TIMEOUT,
    free_port,
    require_tcp,
    silent_server,
    tcp_server,
)
from watchpost.probes.targets.memcached import probe
from watchpost.probes.targets.settings import TargetSettings


def target(**changes: object) -> TargetSettings:
    fields: dict[str, object] = {"kind": "memcached", "host": MEMCACHED[0], "port": MEMCACHED[1]}
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


async def test_reads_stats() -> None:
    require_tcp("memcached", MEMCACHED)
    result = await probe(target(), timeout=TIMEOUT)
    assert result.ok, result.error
    assert result.metrics["curr_connections"] >= 1
    for name in ("cmd_get", "cmd_set", "bytes"):
        assert result.metrics[name] >= 0
    assert result.details["server_version"]


async def test_a_refused_authentication_fails_without_echoing_the_password() -> None:
    """An in-test server answering the text-protocol authentication the way memcached -Y does."""
    seen: list[bytes] = []

    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.readline())
        await reader.readline()
        writer.write(b"CLIENT_ERROR authentication failure\r\n")
        await writer.drain()

    async with tcp_server(server) as port:
        settings = target(port=port, username="watcher", password=TEST_PASSWORD)
        result = await probe(settings, timeout=TIMEOUT)
    assert seen[0].startswith(b"set ")
    assert not result.ok
    assert result.error == f"authentication failed for user watcher on 127.0.0.1:{port}"


async def test_a_server_that_is_not_memcached_fails() -> None:
    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(b"-ERR unknown command 'stats'\r\n")
        await writer.drain()

    async with tcp_server(server) as port:
        result = await probe(target(port=port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"127.0.0.1:{port} does not speak the memcached protocol"


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(port=port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_a_silent_server_times_out() -> None:
    async with silent_server() as port:
        result = await probe(target(port=port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error == f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}"


async def test_a_server_closing_mid_answer_fails() -> None:
    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(b"STAT pid 1\r\n")
        await writer.drain()

    async with tcp_server(server) as port:
        result = await probe(target(port=port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection closed by 127.0.0.1:{port} before `stats` was answered"
