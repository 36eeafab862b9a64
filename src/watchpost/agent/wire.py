"""The probe protocol's messages on the agent's side: a check's input from its JSON, and
the server's address checked (https, or plain HTTP only to this machine or on purpose)."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from watchpost.probes.monitors.check import Header, MonitorCheck
from watchpost.probes.targets.settings import TargetSettings

LOOPBACK_NAMES = frozenset({"localhost"})


def monitor_check(data: dict[str, Any]) -> MonitorCheck:
    """A MonitorCheck from the JSON the server sent (its lists back to tuples)."""
    return MonitorCheck(
        **{
            **data,
            "request_headers": tuple(
                Header(name=h["name"], value=h["value"]) for h in data.get("request_headers", ())
            ),
            "expected_status_codes": tuple(data.get("expected_status_codes", ())),
            "environment_variables": tuple(
                (str(name), str(value)) for name, value in data.get("environment_variables", ())
            ),
        }
    )


def check_input(kind: str, data: dict[str, Any]) -> MonitorCheck | TargetSettings:
    """The probe input of a claimed check of that kind (`monitor` or `collector_target`)."""
    if kind == "collector_target":
        return TargetSettings(**data)
    return monitor_check(data)


def server_problem(url: str, *, insecure_http: bool) -> str | None:
    """Why the agent will not talk to this server address (None: it will)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"--server must be an http(s) URL, not {url!r}"
    if parts.scheme == "https" or insecure_http:
        return None
    host = parts.hostname
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host in LOOPBACK_NAMES
    if loopback:
        return None
    return (
        "--server must use https (the token and monitors' credentials travel on it); plain "
        "http is allowed to 127.0.0.1 and ::1, or anywhere with --insecure-http"
    )
