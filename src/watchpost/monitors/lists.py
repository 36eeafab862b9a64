"""Monitors as the API shows them, and the pages of their lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any, Final

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import ListColumns
from watchpost.listing import PageRequest, ResourcePage, TeamList
from watchpost.maintenance_windows import weekdays_in_order
from watchpost.monitors.models import Monitor
from watchpost.monitors.types import REQUEST_FIELDS
from watchpost.notification_fields import NOTIFICATION_DEFAULTS, policy_ref_out

MONITOR: Final = "monitor"

MONITOR_COLUMNS = ListColumns(
    Monitor,
    (
        "id",
        "monitor_type",
        "url",
        "pronounceable_name",
        "monitor_group_id",
        *REQUEST_FIELDS,
        "check_frequency",
        "confirmation_period",
        "recovery_period",
        "request_timeout",
        "ssl_expiration",
        "domain_expiration",
        "regions",
        "locations",
        "confirmation_rule",
        "confirmation_locations",
        "degraded_since",
        "maintenance_from",
        "maintenance_to",
        "maintenance_timezone",
        "maintenance_days",
        *NOTIFICATION_DEFAULTS,
        "paused",
        "status",
        "paused_at",
        "last_checked_at",
        "last_error",
        "port_list",
        "expiration_policy_id",
        "proxy_host",
        "proxy_port",
        "ip_version",
        "playwright_script",
        "environment_variables",
        "created_at",
        "updated_at",
    ),
)


def port_text(port: int | None, port_list: str | None) -> str | None:
    """The port as the API writes it: the list as sent ("25,465,587"), else the number."""
    if port_list is not None:
        return port_list
    return None if port is None else str(port)


def monitor_resources(rows: Iterable[Sequence[Any]], *, team_name: str) -> list[dict[str, Any]]:
    """Monitors as API resources, from rows of MONITOR_COLUMNS.

    One comprehension that unpacks each row: 250 rows a page, so every call and attribute
    lookup per row shows in the page's cost.
    """
    return [
        {
            "id": str(id_),
            "type": MONITOR,
            "attributes": {
                "monitor_type": monitor_type,
                "url": url,
                "scenario_name": url if monitor_type == "playwright" else None,
                "pronounceable_name": pronounceable_name,
                "monitor_group_id": monitor_group_id,
                "required_keyword": required_keyword,
                "port": port_text(port, port_list),
                "http_method": http_method,
                "request_body": request_body,
                "request_headers": [
                    {"id": str(header["id"]), "name": header["name"], "value": header["value"]}
                    for header in request_headers or ()
                ],
                "expected_status_codes": list(expected_status_codes or ()),
                "follow_redirects": follow_redirects,
                "verify_ssl": verify_ssl,
                "remember_cookies": remember_cookies,
                "auth_username": auth_username,
                "check_frequency": check_frequency,
                "confirmation_period": confirmation_period,
                "recovery_period": recovery_period,
                "request_timeout": request_timeout,
                "ssl_expiration": ssl_expiration,
                "domain_expiration": domain_expiration,
                "regions": list(regions or ()),
                "locations": list(locations or ()),
                "confirmation_rule": confirmation_rule,
                "confirmation_locations": confirmation_locations,
                "degraded": degraded_since is not None,
                "maintenance_from": maintenance_from,
                "maintenance_to": maintenance_to,
                "maintenance_timezone": maintenance_timezone,
                "maintenance_days": weekdays_in_order(maintenance_days),
                "call": call,
                "sms": sms,
                "email": email,
                "push": push,
                "team_wait": team_wait,
                "policy_id": policy_ref_out(policy_id),
                "critical_alert": critical_alert,
                "expiration_policy_id": expiration_policy_id,
                "proxy_host": proxy_host,
                "proxy_port": proxy_port,
                "ip_version": ip_version,
                "playwright_script": playwright_script,
                "environment_variables": dict(environment_variables or {}),
                "paused": paused,
                "status": status,
                "paused_at": paused_at,
                "last_checked_at": last_checked_at,
                "last_error": last_error,
                "team_name": team_name,
                "created_at": created_at,
                "updated_at": updated_at,
            },
        }
        for (
            id_,
            monitor_type,
            url,
            pronounceable_name,
            monitor_group_id,
            required_keyword,
            port,
            http_method,
            request_body,
            request_headers,
            expected_status_codes,
            follow_redirects,
            verify_ssl,
            remember_cookies,
            auth_username,
            check_frequency,
            confirmation_period,
            recovery_period,
            request_timeout,
            ssl_expiration,
            domain_expiration,
            regions,
            locations,
            confirmation_rule,
            confirmation_locations,
            degraded_since,
            maintenance_from,
            maintenance_to,
            maintenance_timezone,
            maintenance_days,
            call,
            sms,
            email,
            push,
            team_wait,
            policy_id,
            critical_alert,
            paused,
            status,
            paused_at,
            last_checked_at,
            last_error,
            port_list,
            expiration_policy_id,
            proxy_host,
            proxy_port,
            ip_version,
            playwright_script,
            environment_variables,
            created_at,
            updated_at,
        ) in rows
    ]


def monitor_resource(monitor: Monitor, team_name: str) -> dict[str, Any]:
    return monitor_resources([MONITOR_COLUMNS.row(monitor)], team_name=team_name)[0]


MONITORS = TeamList(
    MONITOR_COLUMNS,
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
    render = partial(monitor_resources, team_name=team_name)
    return await MONITORS.page(session, paging, render, team_id=team_id, filters=filters)
