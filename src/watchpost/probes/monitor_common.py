"""Shared plumbing of the monitor probes: where to connect, and the wording of errors."""

from __future__ import annotations

import asyncio
import socket
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from watchpost.outbound import DeniedAddress

if TYPE_CHECKING:
    from watchpost.probes.monitors import MonitorCheck


class ConfigError(Exception):
    """The monitor cannot be checked as configured; the message is for people."""


@dataclass(frozen=True)
class Target:
    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def seconds(timeout: float) -> str:
    return f"{timeout:g}s"


def timed_out(timeout: float) -> str:
    return f"timed out after {seconds(timeout)}"


def target(settings: MonitorCheck, default_port: int | None) -> Target:
    """Host from url (a host name, an IP or a URL) and port from `port`, else the URL's or default."""
    raw = settings.url.strip()
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
    return Target(host, port)


def describe(exc: BaseException, where: Target) -> str:
    """Wording for a network failure: refused, unknown host, TLS, reset …"""
    if isinstance(exc, DeniedAddress):
        return f"{exc}; nothing was sent"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve host {where.host}: {exc.strerror}"
    if isinstance(exc, ConnectionRefusedError):
        return f"connection refused by {where}"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate verify failed: {exc.verify_message}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS handshake failed: {exc.reason or exc}"
    if isinstance(exc, asyncio.IncompleteReadError | ConnectionResetError | BrokenPipeError):
        return f"connection closed by {where} before it answered"
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot connect to {where}: {exc.strerror}"
    return f"check of {where} failed: {type(exc).__name__}: {exc}"
