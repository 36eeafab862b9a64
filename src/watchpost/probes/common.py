"""Shared plumbing of the target probes: the deadline, the wording of errors, scrubbing."""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx

from watchpost import outbound
from watchpost.probes.base import ProbeResult, Stopwatch, failure

if TYPE_CHECKING:
    from watchpost.probes.targets import TargetSettings


class CheckFailed(Exception):
    """The server answered, and the answer is a failure; the message is already for people."""


@dataclass
class Reading:
    """What a passed check read."""

    metrics: dict[str, float] = field(default_factory=dict)
    details: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


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


def scrub(message: str, secrets: tuple[str, ...]) -> str:
    """The message with every credential replaced, whatever a server or library echoed."""
    for secret in secrets:
        message = message.replace(secret, "***")
    return message


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def describe_network_error(exc: BaseException, address: Address) -> str | None:
    """Wording for a refused connection, a failed lookup, a TLS failure … anywhere in the chain."""
    for cause in _chain(exc):
        if isinstance(cause, outbound.DeniedAddress):
            return f"{cause}; nothing was sent"
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve host {address.host} (DNS lookup failed: {cause.strerror})"
        if isinstance(cause, ConnectionRefusedError):
            return f"connection refused by {address} (nothing listens on that port?)"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"TLS handshake with {address} failed: certificate not trusted ({cause.verify_message})"
        if isinstance(cause, ssl.SSLError):
            return f"TLS handshake with {address} failed ({cause.reason or first_line(cause)})"
        if isinstance(cause, TimeoutError):
            return f"no answer from {address} in time"
        if isinstance(cause, asyncio.IncompleteReadError | ConnectionResetError | BrokenPipeError):
            return f"connection closed by {address} before it answered"
        if isinstance(cause, OSError) and cause.errno is not None:
            return f"cannot connect to {address}: {cause.strerror}"
    return None


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
        message = (
            (explain(exc) if explain else None)
            or describe_network_error(exc, address)
            or f"check of {address} failed: {first_line(exc)}"
        )
    else:
        return ProbeResult(
            ok=True, latency_ms=watch.ms(), metrics=reading.metrics, details=reading.details
        )
    return failure(watch, scrub(message, settings.secrets))


@functools.cache
def verifying_context() -> ssl.SSLContext:
    """The system's trust store, certificates and host names checked; built once."""
    return ssl.create_default_context()


async def http_get(
    url: str,
    *,
    address: Address,
    timeout: float,
    headers: dict[str, str] | None = None,
    auth: tuple[str, str] | None = None,
    accept_statuses: frozenset[int] = frozenset(),
) -> httpx.Response:
    """GET url without redirects; 401/403 and other non-2xx answers become CheckFailed.

    The request goes to a checked address of the URL's host (outbound.py), with the name kept
    for the Host header and for TLS (SNI and certificate check).
    """
    target = httpx.URL(url)
    port = target.port or (443 if target.scheme == "https" else 80)
    ip = await outbound.reachable_address(target.host, port)
    async with httpx.AsyncClient(
        timeout=timeout + 1, follow_redirects=False, trust_env=False, verify=verifying_context()
    ) as client:
        response = await client.get(
            target.copy_with(host=ip),
            headers={"Host": target.netloc.decode("ascii"), **(headers or {})},
            auth=auth,
            extensions={"sni_hostname": target.host},
        )
    status = response.status_code
    if status in (401, 403):
        raise CheckFailed(f"authentication failed: {address} answered HTTP {status}")
    if not 200 <= status < 300 and status not in accept_statuses:
        raise CheckFailed(f"{_path_of(url)} on {address} answered HTTP {status}")
    return response


def _path_of(url: str) -> str:
    return httpx.URL(url).raw_path.decode("ascii", "replace")
