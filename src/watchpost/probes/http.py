"""The one HTTP client of the probes: aiohttp, one pooled session per event loop.

aiohttp was chosen by measurement (docs/benchmarks.md, "HTTP client for checks"). Every
address is checked against the destination policy: names by the resolver, and every
connection (IP literals, redirects) by the socket factory (outbound.py).
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from typing import Any

import aiohttp

from watchpost.outbound import PolicyResolver, checked_socket
from watchpost.probes.errors import reason


@functools.cache
def verifying_context() -> ssl.SSLContext:
    """The system's trust store, certificates and host names checked; built once."""
    return ssl.create_default_context()


def one_try_session(**options: Any) -> aiohttp.ClientSession:
    """A session that sends each request once.

    aiohttp sends an idempotent request a second time when its connection drops (it has no
    public switch; its own test client turns it off the same way). A check is one request:
    the checked server must see it once, and a dropped connection is the check's result.
    """
    session = aiohttp.ClientSession(trust_env=False, **options)
    session._retry_connection = False
    return session


class HttpClient:
    """The shared aiohttp session of the running event loop (created on first use)."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            # The engine bounds how many checks run at once; the pool does not.
            connector = aiohttp.TCPConnector(
                limit=0,
                ttl_dns_cache=60,
                resolver=PolicyResolver(),
                socket_factory=checked_socket,
            )
            self._session = one_try_session(
                connector=connector, cookie_jar=aiohttp.DummyCookieJar()
            )
            self._loop = loop
        return self._session

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None


CLIENT = HttpClient()


def decode_body(body: bytes, charset: str | None) -> str:
    """The body as text in its charset (UTF-8 when none or unknown), bad bytes replaced."""
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def connection_error(exc: aiohttp.ClientConnectorError) -> BaseException:
    """What aiohttp's connection error wraps: the OS, DNS, policy or certificate error."""
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return exc.certificate_error
    return exc.os_error


def unreadable_answer(exc: aiohttp.ClientResponseError | aiohttp.ClientPayloadError) -> str:
    """An answer aiohttp could not parse, worded without the bytes its parser quotes (a
    server's answer never reaches an error text: probes/errors.py)."""
    if isinstance(exc, aiohttp.ClientPayloadError):
        return f"response body could not be read ({reason(exc)})"
    return f"invalid HTTP response ({reason(exc.message)})"
