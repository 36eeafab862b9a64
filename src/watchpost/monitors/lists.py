"""Monitors as the API shows them, and the pages of their lists."""

from __future__ import annotations

from functools import partial
from typing import Any, Final

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import Derived, ResourceAttributes, derived, stored
from watchpost.listing import PageRequest, ResourcePage, TeamList
from watchpost.maintenance_windows import MAINTENANCE_ATTRIBUTES
from watchpost.monitors.models import Monitor
from watchpost.notification_fields import NOTIFICATION_ATTRIBUTES

MONITOR: Final = "monitor"


def port_text(port: int | None, port_list: str | None) -> str | None:
    """The port as the API writes it: the list as sent ("25,465,587"), else the number."""
    if port_list is not None:
        return port_list
    return None if port is None else str(port)


def _headers(headers: list[dict[str, Any]] | None) -> list[dict[str, str]]:
    return [
        {"id": str(header["id"]), "name": header["name"], "value": header["value"]}
        for header in headers or ()
    ]


def _scenario_name(url: str, monitor_type: str) -> str | None:
    return url if monitor_type == "playwright" else None


def _listed(column: str) -> Derived:
    """A JSON list column, [] when null."""
    return derived(lambda values: list(values or ()), column)


MONITOR_ATTRIBUTES = ResourceAttributes(
    Monitor,
    MONITOR,
    {
        **stored("monitor_type", "url"),
        "scenario_name": derived(_scenario_name, "url", "monitor_type"),
        **stored("pronounceable_name", "monitor_group_id", "required_keyword"),
        "port": derived(port_text, "port", "port_list"),
        **stored("http_method", "request_body"),
        "request_headers": derived(_headers, "request_headers"),
        "expected_status_codes": _listed("expected_status_codes"),
        **stored("follow_redirects", "verify_ssl", "remember_cookies", "auth_username"),
        **stored("check_frequency", "confirmation_period", "recovery_period", "request_timeout"),
        **stored("ssl_expiration", "domain_expiration"),
        "regions": _listed("regions"),
        "locations": _listed("locations"),
        **stored("confirmation_rule", "confirmation_locations"),
        "degraded": derived(lambda since: since is not None, "degraded_since"),
        **MAINTENANCE_ATTRIBUTES,
        **NOTIFICATION_ATTRIBUTES,
        **stored("expiration_policy_id", "proxy_host", "proxy_port", "ip_version"),
        "playwright_script": "playwright_script",
        "environment_variables": derived(
            lambda variables: dict(variables or {}), "environment_variables"
        ),
        **stored("paused", "status", "paused_at", "last_checked_at", "last_error"),
        **stored("team_name", "created_at", "updated_at"),
    },
    added=("team_name",),
)
"""A monitor's attributes: the list, the single read and the OpenAPI's MonitorAttributes."""


def monitor_resource(monitor: Monitor, team_name: str) -> dict[str, Any]:
    return MONITOR_ATTRIBUTES.resource(monitor, team_name=team_name)


MONITORS = TeamList(
    MONITOR_ATTRIBUTES.columns,
    {
        "url": Monitor.url == bindparam("url"),
        "pronounceable_name": Monitor.pronounceable_name == bindparam("pronounceable_name"),
        "group_id": Monitor.monitor_group_id == bindparam("group_id"),
    },
    counted=True,
)


async def list_monitors(
    session: AsyncSession,
    *,
    team_id: int,
    team_name: str,
    paging: PageRequest,
    url: str | None = None,
    pronounceable_name: str | None = None,
    group_id: int | None = None,
) -> ResourcePage:
    """A page of the team's monitors, or of one group's; the filters match exactly (an empty
    one is ignored)."""
    filters: dict[str, object] = {"url": url or None, "group_id": group_id}
    filters["pronounceable_name"] = pronounceable_name or None
    render = partial(MONITOR_ATTRIBUTES.resources, team_name=team_name)
    return await MONITORS.page(session, paging, render, team_id=team_id, filters=filters)
