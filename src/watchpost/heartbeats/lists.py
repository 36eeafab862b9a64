"""Heartbeats as the API shows them, and the pages of their lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import ListColumns
from watchpost.heartbeats.models import Heartbeat
from watchpost.heartbeats.service import HEARTBEAT, PING_PATH
from watchpost.listing import PageRequest, ResourcePage, TeamList
from watchpost.maintenance_windows import weekdays_in_order
from watchpost.notification_fields import NOTIFICATION_DEFAULTS, policy_ref_out

HEARTBEAT_COLUMNS = ListColumns(
    Heartbeat,
    (
        "id",
        "name",
        "token",
        "period",
        "grace",
        "heartbeat_group_id",
        "sort_index",
        "paused",
        "paused_at",
        "status",
        "last_ping_at",
        "maintenance_from",
        "maintenance_to",
        "maintenance_timezone",
        "maintenance_days",
        *NOTIFICATION_DEFAULTS,
        "server_timezone",
        "created_at",
        "updated_at",
    ),
)


def heartbeat_resources(
    rows: Iterable[Sequence[Any]], *, public_base: str, team_name: str
) -> list[dict[str, Any]]:
    """Heartbeats as API resources, from rows of HEARTBEAT_COLUMNS.

    One comprehension that unpacks each row: 250 rows a page, so every call and attribute
    lookup per row shows in the page's cost.
    """
    ping_base = f"{public_base}{PING_PATH}"
    return [
        {
            "id": str(id_),
            "type": HEARTBEAT,
            "attributes": {
                "name": name,
                "url": ping_base + token,
                "period": period,
                "grace": grace,
                "heartbeat_group_id": heartbeat_group_id,
                "sort_index": sort_index,
                "paused": paused,
                "paused_at": paused_at,
                "status": status,
                "last_ping_at": last_ping_at,
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
                "server_timezone": server_timezone,
                "team_name": team_name,
                "created_at": created_at,
                "updated_at": updated_at,
            },
        }
        for (
            id_,
            name,
            token,
            period,
            grace,
            heartbeat_group_id,
            sort_index,
            paused,
            paused_at,
            status,
            last_ping_at,
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
            server_timezone,
            created_at,
            updated_at,
        ) in rows
    ]


def heartbeat_resource(heartbeat: Heartbeat, *, public_base: str, team_name: str) -> dict[str, Any]:
    row = HEARTBEAT_COLUMNS.row(heartbeat)
    return heartbeat_resources([row], public_base=public_base, team_name=team_name)[0]


HEARTBEATS = TeamList(
    HEARTBEAT_COLUMNS,
    {"group_id": Heartbeat.heartbeat_group_id == bindparam("group_id")},
    counted=True,
)


async def list_heartbeats(
    session: AsyncSession,
    *,
    team_id: int,
    team_name: str,
    public_base: str,
    paging: PageRequest,
    group_id: int | None = None,
) -> ResourcePage:
    """A page of the team's heartbeats, or of one group's."""
    render = partial(heartbeat_resources, public_base=public_base, team_name=team_name)
    filters = {"group_id": group_id}
    return await HEARTBEATS.page(session, paging, render, team_id=team_id, filters=filters)
