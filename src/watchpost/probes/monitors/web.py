"""HTTP monitors: status, expected_status_code, keyword and keyword_absence.

Requests go through the probes' one HTTP client (probes/http.py), so connections are pooled;
a monitor that remembers cookies gets a session of its own over the same pool, so no cookie
ever crosses to another monitor.
At most BODY_LIMIT bytes of a body are read: a keyword further down is not seen.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import aiohttp
from multidict import CIMultiDict

from watchpost import destinations
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.errors import Address, describe, scrub
from watchpost.probes.http import (
    CLIENT,
    connection_error,
    decode_body,
    one_try_session,
    unreadable_answer,
    verifying_context,
)
from watchpost.probes.monitors.common import ConfigError, timed_out

if TYPE_CHECKING:
    from watchpost.probes.monitors.check import MonitorCheck

BODY_LIMIT = 1024 * 1024
"""Bytes of a response body read for keyword checks (1 MiB)."""
MAX_REDIRECTS = 10
USER_AGENT = "Watchpost monitor check"
METHODS = frozenset({"get", "head", "post", "put", "patch"})


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
        "ssl": verifying_context() if settings.verify_ssl else False,
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


def _keyword_error(settings: MonitorCheck, text: str) -> str | None:
    keyword = settings.required_keyword or ""
    found = keyword in text
    if settings.monitor_type == "keyword" and not found:
        return f"keyword {keyword!r} not found"
    if settings.monitor_type == "keyword_absence" and found:
        return f"keyword {keyword!r} found"
    return None


def _as_written(host: str, settings: MonitorCheck) -> str:
    """host as the monitor's URL writes it, where aiohttp names its xn-- form (so an error
    names `bücher.de` as the URL and the other check types do); else host."""
    written = urlsplit(settings.url).hostname or ""
    if written == host or written.isascii():
        return host
    try:
        return written if destinations.ascii_name(written) == host else host
    except ValueError:
        return host


def _describe_client_error(exc: aiohttp.ClientError, settings: MonitorCheck) -> str:
    if isinstance(exc, aiohttp.ClientConnectorError):
        address = Address(_as_written(exc.host, settings), exc.port or 0)
        return describe(connection_error(exc), address)
    if isinstance(exc, aiohttp.ClientSSLError):
        return f"TLS handshake failed: {exc}"
    if isinstance(exc, aiohttp.TooManyRedirects):
        return f"too many redirects (more than {MAX_REDIRECTS})"
    if isinstance(exc, aiohttp.InvalidURL):
        return "invalid url"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "server closed the connection without answering"
    if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ClientResponseError):
        return unreadable_answer(exc)
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
            error = _keyword_error(settings, decode_body(body, response.charset))
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
    return failure(watch, scrub(message, settings.secrets))
