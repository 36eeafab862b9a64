"""Shared plumbing of the collector target probes: the deadline, where a process listens, HTTP,
the metrics among typed values."""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from yarl import URL

from watchpost import outbound
from watchpost.probes.base import Probe, ProbeResult, Stopwatch, failure
from watchpost.probes.errors import LISTENING_HINT, Address, describe, scrub
from watchpost.probes.http import (
    CLIENT,
    connection_error,
    decode_body,
    unreadable_answer,
    verifying_context,
)
from watchpost.probes.targets.settings import TargetSettings


class CheckFailed(Exception):
    """The server answered, and the answer is a failure; the message is already for people."""


@dataclass
class Reading:
    """What a passed check read."""

    metrics: dict[str, float] = field(default_factory=dict)
    details: dict[str, str] = field(default_factory=dict)


def numbers(values: Mapping[str, Any], names: Iterable[str]) -> dict[str, float]:
    """The metrics among a server's typed values (JSON, RESP, BSON): each of `names` whose
    value is an int or a float, as a float; the others are left out."""
    return {
        name: float(values[name]) for name in names if isinstance(values.get(name), int | float)
    }


def service_address(settings: TargetSettings, default_port: int) -> Address:
    """Where a process target (nginx, apache, kafka) answers.

    listen_ip, when it is a concrete address, is where the service listens, so it is used
    instead of host; a wildcard (0.0.0.0, ::) says nothing about where to connect.
    """
    host = settings.host
    if settings.listen_ip:
        try:
            if not ipaddress.ip_address(settings.listen_ip).is_unspecified:
                host = settings.listen_ip
        except ValueError:
            pass
    return Address(host, settings.port or default_port)


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


async def tcp_reachable(address: Address) -> None:
    """Opens and closes a TCP connection: a refused port or an unknown host shows at once."""
    _, writer = await outbound.open_connection(address.host, address.port)
    writer.close()


async def run_check(
    settings: TargetSettings,
    *,
    timeout: float,
    address: Address,
    check: Callable[[], Awaitable[Reading]],
    explain: Callable[[Exception], str | None] | None = None,
) -> ProbeResult:
    """Runs check under the deadline; any failure becomes a result, never an exception.

    explain words the errors of the probe's client library (authentication, TLS …); what it
    leaves (None) is worded from the network error in the exception chain, if any.
    """
    watch = Stopwatch()
    try:
        async with asyncio.timeout(timeout):
            reading = await check()
    except TimeoutError:
        message = f"timed out after {timeout:g} s waiting for {address}"
    except CheckFailed as exc:
        message = str(exc)
    except Exception as exc:
        message = (explain(exc) if explain else None) or describe(
            exc, address, refused_hint=LISTENING_HINT
        )
    else:
        return ProbeResult(
            ok=True, latency_ms=watch.ms(), metrics=reading.metrics, details=reading.details
        )
    return failure(watch, scrub(message, settings.secrets))


@dataclass(frozen=True)
class Answer:
    """An HTTP response's body, read whole."""

    text: str

    def json(self) -> Any:
        """The body as JSON; ValueError when it is not."""
        return json.loads(self.text)


async def http_get(
    url: str,
    *,
    address: Address,
    timeout: float,
    headers: dict[str, str] | None = None,
    accept_statuses: frozenset[int] = frozenset(),
) -> Answer:
    """GET url without redirects; 401/403 and other non-2xx answers become CheckFailed.

    The request goes through the probes' HTTP client (probes/http.py), which connects only
    to checked addresses of the URL's host and keeps the name for TLS.
    """
    try:
        async with CLIENT.session().get(
            url,
            headers=headers,
            allow_redirects=False,
            ssl=verifying_context(),
            timeout=aiohttp.ClientTimeout(total=timeout + 1),
        ) as response:
            status = response.status
            text = decode_body(await response.read(), response.charset)
    except aiohttp.ClientConnectorError as exc:
        error = connection_error(exc)
        if isinstance(error, ConnectionResetError) and URL(url).scheme == "https":
            # Closed during the TLS handshake, as a plain HTTP server does.
            raise CheckFailed(f"TLS handshake with {address} failed (connection closed)") from exc
        raise error from exc
    except (aiohttp.ClientResponseError, aiohttp.ClientPayloadError) as exc:
        where = f"{URL(url).raw_path_qs} on {address}"
        raise CheckFailed(f"{where}: {unreadable_answer(exc)}") from None
    if status in (401, 403):
        raise CheckFailed(f"authentication failed: {address} answered HTTP {status}")
    if not 200 <= status < 300 and status not in accept_statuses:
        raise CheckFailed(f"{URL(url).raw_path_qs} on {address} answered HTTP {status}")
    return Answer(text)


def status_page_probe(
    default_port: int, path: str, read: Callable[[str, Address, str], Reading]
) -> Probe[TargetSettings]:
    """The probe of a web server's status page (nginx, apache), at
    http://{listen_ip or host}:{port or default_port}{path}; read(text, address, url) turns
    the page into a Reading, or raises CheckFailed."""

    async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
        address = service_address(settings, default_port)
        url = f"http://{url_host(address.host)}:{address.port}{path}"

        async def check() -> Reading:
            response = await http_get(url, address=address, timeout=timeout)
            return read(response.text, address, url)

        return await run_check(settings, timeout=timeout, address=address, check=check)

    return probe
