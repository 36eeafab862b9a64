"""Shared plumbing of the monitor probes: where to connect, and the wording of timeouts."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.errors import Address, describe

if TYPE_CHECKING:
    from watchpost.probes.monitors.check import MonitorCheck


class ConfigError(Exception):
    """The monitor cannot be checked as configured; the message is for people."""


def seconds(timeout: float) -> str:
    return f"{timeout:g}s"


def timed_out(timeout: float) -> str:
    return f"timed out after {seconds(timeout)}"


def network_failure(
    watch: Stopwatch, exc: Exception, where: Address, *, timeout: float, doing: str
) -> ProbeResult:
    """The failed result of a connection's error: a timeout says how long it waited and what
    it was doing (`doing`); any other error is worded by describe()."""
    if isinstance(exc, TimeoutError):
        return failure(watch, f"{timed_out(timeout)} {doing}")
    return failure(watch, describe(exc, where))


def target(settings: MonitorCheck, default_port: int | None) -> Address:
    """Host from url (a host name, an IP or a URL) and port from `port`, else the URL's or default."""
    raw = settings.url.strip()
    host: str | None
    try:
        # A bare IPv6 address ("::1"): as a URL's netloc its last group would read as a port.
        host, url_port = str(ipaddress.ip_address(raw)), None
    except ValueError:
        parts = urlsplit(raw if "://" in raw else f"//{raw}")
        try:
            host, url_port = parts.hostname, parts.port
        except ValueError as exc:
            raise ConfigError(f"invalid url: {exc}") from None
    if not host:
        raise ConfigError("url has no host name")
    port: int | None = default_port if url_port is None else url_port
    if settings.port not in (None, ""):
        assert settings.port is not None
        if not settings.port.strip().isdigit() or not 0 < int(settings.port) < 65536:
            raise ConfigError(f"invalid port {settings.port!r}")
        port = int(settings.port)
    if port is None:
        raise ConfigError(f"a port is required for {settings.monitor_type} monitors")
    return Address(host, port)
