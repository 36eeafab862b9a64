"""HTTP monitors: status, expected_status_code, keyword and keyword_absence.

aiohttp was chosen by measurement (docs/benchmarks.md, "HTTP client for checks"). One session per event
loop is shared by every settings, so connections are pooled; a settings that remembers cookies
gets a session of its own over the same pool, so no cookie ever crosses to another monitor.
At most BODY_LIMIT bytes of a body are read: a keyword further down is not seen.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from typing import TYPE_CHECKING, Any

import aiohttp
from multidict import CIMultiDict

from watchpost.outbound import PolicyResolver, checked_socket
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.monitor_common import ConfigError, Target, describe, timed_out

if TYPE_CHECKING:
    from watchpost.probes.monitors import MonitorCheck

BODY_LIMIT = 1024 * 1024
"""Bytes of a response body read for keyword checks (1 MiB)."""
MAX_REDIRECTS = 10
USER_AGENT = "Watchpost monitor check"
METHODS = frozenset({"get", "head", "post", "put", "patch"})


@functools.cache
def _verifying_context() -> ssl.SSLContext:
    return ssl.create_default_context()


def one_try_session(**options: Any) -> aiohttp.ClientSession:
    """A session that sends each request once.

    aiohttp sends an idempotent request a second time when its connection drops (it has no
    public switch; its own test client turns it off the same way). A check is one request:
    the monitored server must see it once, and a dropped connection is the check's result.
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
            # Every address is checked against the destination policy: names by the
            # resolver, and every connection (IP literals, redirects) by the socket factory.
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


def _keyword_needed(settings: MonitorCheck) -> bool:
    return settings.monitor_type in ("keyword", "keyword_absence")


def _request_args(settings: MonitorCheck) -> dict[str, object]:
    method = settings.http_method.lower()
    if method not in METHODS:
        raise ConfigError(f"unsupported http_method {settings.http_method!r}")
    if not settings.url.lower().startswith(("http://", "https://")):
        raise ConfigError("url must start with http:// or https://")
    if _keyword_needed(settings) and not settings.required_keyword:
        raise ConfigError(f"required_keyword is needed for {settings.monitor_type} monitors")
    headers: CIMultiDict[str] = CIMultiDict({"User-Agent": USER_AGENT})
    for header in settings.request_headers:
        headers.popall(header.name, None)
    for header in settings.request_headers:
        headers.add(header.name, header.value)
    if settings.auth_username or settings.auth_password:
        # aiohttp drops this header when a redirect leaves the origin.
        headers["Authorization"] = aiohttp.encode_basic_auth(
            settings.auth_username or "", settings.auth_password or ""
        )
    return {
        "method": method.upper(),
        "url": settings.url,
        "headers": headers,
        "data": settings.request_body.encode()
        if settings.request_body and method != "head"
        else None,
        "allow_redirects": settings.follow_redirects,
        "max_redirects": MAX_REDIRECTS,
        "ssl": _verifying_context() if settings.verify_ssl else False,
    }


def _verdict(settings: MonitorCheck, status: int) -> str | None:
    if settings.monitor_type == "expected_status_code" and settings.expected_status_codes:
        if status in settings.expected_status_codes:
            return None
        expected = ", ".join(str(code) for code in settings.expected_status_codes)
        return f"HTTP {status} (expected {expected})"
    return None if 200 <= status < 400 else f"HTTP {status}"


async def _read_body(response: aiohttp.ClientResponse) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < BODY_LIMIT:
        chunk = await response.content.read(BODY_LIMIT - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _text(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def _keyword_error(settings: MonitorCheck, text: str) -> str | None:
    keyword = settings.required_keyword or ""
    found = keyword in text
    if settings.monitor_type == "keyword" and not found:
        return f"keyword {keyword!r} not found"
    if settings.monitor_type == "keyword_absence" and found:
        return f"keyword {keyword!r} found"
    return None


def _describe_client_error(exc: aiohttp.ClientError, settings: MonitorCheck) -> str:
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        cert_error = exc.certificate_error
        reason = getattr(cert_error, "verify_message", None) or str(cert_error)
        return f"TLS certificate verify failed: {reason}"
    if isinstance(exc, aiohttp.ClientConnectorError):
        where = Target(exc.host, exc.port or 0)
        return describe(exc.os_error, where)
    if isinstance(exc, aiohttp.ClientSSLError):
        return f"TLS handshake failed: {exc}"
    if isinstance(exc, aiohttp.TooManyRedirects):
        return f"too many redirects (more than {MAX_REDIRECTS})"
    if isinstance(exc, aiohttp.InvalidURL):
        return "invalid url"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "server closed the connection without answering"
    if isinstance(exc, aiohttp.ClientPayloadError):
        return f"response body could not be read: {exc}"
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"invalid HTTP response: {exc.message}"
    return f"HTTP request failed: {type(exc).__name__}: {exc}"


async def _request(
    session: aiohttp.ClientSession, settings: MonitorCheck, watch: Stopwatch
) -> ProbeResult:
    async with session.request(**_request_args(settings)) as response:  # type: ignore[arg-type]
        status = response.status
        details = {"status_code": str(status)}
        metrics = {"status_code": float(status)}
        error = _verdict(settings, status)
        if error is None and _keyword_needed(settings):
            body = await _read_body(response)
            metrics["body_bytes"] = float(len(body))
            error = _keyword_error(settings, _text(body, response.charset))
    if error is not None:
        return failure(watch, error, **details)
    return ProbeResult(ok=True, latency_ms=watch.ms(), metrics=metrics, details=details)


async def http_check(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """One HTTP request as the monitor describes it; status and keyword rules decide."""
    watch = Stopwatch()
    try:
        async with asyncio.timeout(timeout):
            if settings.remember_cookies:
                shared = CLIENT.session()
                async with one_try_session(
                    connector=shared.connector,
                    connector_owner=False,
                    cookie_jar=aiohttp.CookieJar(unsafe=True),
                ) as session:
                    return await _request(session, settings, watch)
            return await _request(CLIENT.session(), settings, watch)
    except TimeoutError:
        message = timed_out(timeout)
    except ConfigError as exc:
        message = str(exc)
    except aiohttp.ClientError as exc:
        message = _describe_client_error(exc, settings)
    except (OSError, ValueError) as exc:
        message = f"HTTP request failed: {type(exc).__name__}: {exc}"
    for secret in settings.secrets:
        message = message.replace(secret, "***")
    return failure(watch, message)
