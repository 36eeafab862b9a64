"""Servers for the probe tests: reachability with skip-or-fail, free ports, tiny local servers.

A test whose server is unreachable skips with the reason, unless WATCHPOST_REQUIRE_SERVICES=1
(set by CI), which turns the skip into a failure. scripts/ci-services starts memcached,
nginx and apache2 on the addresses below; PostgreSQL, MariaDB and Redis are the machine's.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import NoReturn

import pytest

POSTGRES = ("127.0.0.1", 5432)
MARIADB = ("127.0.0.1", 3306)
REDIS = ("127.0.0.1", 6379)
MEMCACHED = ("127.0.0.1", 11211)
NGINX = ("127.0.0.1", 18080)  # ci/nginx.conf: stub_status at /nginx_status
APACHE = ("127.0.0.1", 18081)  # ci/apache2.conf: mod_status at /server-status

# A deadline for checks against servers that answer; short ones are for silent servers.
TIMEOUT = 10.0
SHORT_TIMEOUT = 0.3


def services_required() -> bool:
    return os.environ.get("WATCHPOST_REQUIRE_SERVICES", "") not in ("", "0", "false")


def unavailable(reason: str) -> NoReturn:
    if services_required():
        pytest.fail(f"WATCHPOST_REQUIRE_SERVICES is set but {reason}")
    pytest.skip(reason)


def require_tcp(name: str, address: tuple[str, int]) -> None:
    """Skips (or fails under CI) unless something accepts connections at address."""
    try:
        with socket.create_connection(address, timeout=3):
            return
    except OSError as exc:
        hint = " (run scripts/ci-services)" if address in (MEMCACHED, NGINX, APACHE) else ""
        unavailable(f"{name} is not reachable at {address[0]}:{address[1]}{hint}: {exc}")


def free_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def tcp_server(handler: Handler, host: str = "127.0.0.1") -> AsyncIterator[int]:
    """A loopback server (on `host`) running handler per connection; yields its port."""
    tasks: set[asyncio.Task[None]] = set()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        try:
            await handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            tasks.discard(task)

    server = await asyncio.start_server(serve, host, 0)
    port: int = server.sockets[0].getsockname()[1]
    try:
        yield port
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        for task in list(tasks):
            with suppress(asyncio.CancelledError):
                await task
        await server.wait_closed()


@asynccontextmanager
async def silent_server(host: str = "127.0.0.1") -> AsyncIterator[int]:
    """Accepts connections and never answers: what a hung server looks like."""

    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.Event().wait()

    async with tcp_server(hang, host) as port:
        yield port


def ipv6_loopback() -> bool:
    """Whether ::1 can be listened on here (a container may have no IPv6)."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@asynccontextmanager
async def http_server(
    respond: Callable[[str, dict[str, str]], tuple[int, str, str]],
) -> AsyncIterator[int]:
    """A one-request-per-connection HTTP/1.1 server: respond(target, headers) → status, type, body."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = (await reader.readline()).decode()
        headers: dict[str, str] = {}
        while (line := (await reader.readline()).decode().strip()) != "":
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        target = request_line.split(" ")[1]
        status, content_type, body = respond(target, headers)
        payload = body.encode()
        writer.write(
            f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            + payload
        )
        await writer.drain()

    async with tcp_server(handle) as port:
        yield port


CANARY_HOST = "127.0.0.2"
CANARY_DENIED = "127.0.0.2/32"
"""The setting a test denies the canary's address with (WATCHPOST_DENIED_NETWORKS)."""


@dataclass
class Canary:
    port: int = 0
    connections: int = 0

    def url(self, path: str = "/") -> str:
        return f"http://{CANARY_HOST}:{self.port}{path}"


@asynccontextmanager
async def canary() -> AsyncIterator[Canary]:
    """A server on 127.0.0.2, the address tests deny (CANARY_DENIED), counting connections:
    what "must not be reached" is checked against. Skips where 127.0.0.2 cannot be bound."""
    seen = Canary()

    async def count(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.connections += 1
        writer.close()

    try:
        server = await asyncio.start_server(count, CANARY_HOST, 0)
    except OSError as exc:
        unavailable(f"cannot listen on {CANARY_HOST} here: {exc}")
    seen.port = server.sockets[0].getsockname()[1]
    try:
        yield seen
    finally:
        server.close()
        await server.wait_closed()


@asynccontextmanager
async def redirecting_to(location: str) -> AsyncIterator[int]:
    """A loopback HTTP server answering every request with 302 to location; yields its port."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (await reader.readline()).strip():
            pass
        writer.write(
            f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()
        )
        await writer.drain()

    async with tcp_server(handle) as port:
        yield port
