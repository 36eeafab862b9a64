"""Heartbeats as the API shows them, and the pages of their lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import ResourceAttributes, derived, stored
from watchpost.heartbeats.models import Heartbeat
from watchpost.heartbeats.service import HEARTBEAT, PING_PATH
from watchpost.listing import PageRequest, ResourcePage, TeamList
from watchpost.maintenance_windows import MAINTENANCE_ATTRIBUTES
from watchpost.notification_fields import NOTIFICATION_ATTRIBUTES

HEARTBEAT_ATTRIBUTES = ResourceAttributes(
    Heartbeat,
    HEARTBEAT,
    {
        "name": "name",
        "url": derived(lambda ping_base, token: ping_base + token, "ping_base", "token"),
        **stored("period", "grace", "heartbeat_group_id", "sort_index"),
        **stored("paused", "paused_at", "status", "last_ping_at"),
        **MAINTENANCE_ATTRIBUTES,
        **NOTIFICATION_ATTRIBUTES,
        "server_timezone": "server_timezone",
        **stored("team_name", "created_at", "updated_at"),
    },
    added=("ping_base", "team_name"),
)
"""A heartbeat's attributes: the list, the single read and the OpenAPI's HeartbeatAttributes
(its url: the ping URL, made of the renderer's `ping_base` and the token)."""


def heartbeat_resources(
    rows: Iterable[Sequence[Any]], *, public_base: str, team_name: str
) -> list[dict[str, Any]]:
    """Heartbeats as API resources, from rows of HEARTBEAT_ATTRIBUTES.columns."""
    ping_base = f"{public_base}{PING_PATH}"
    return HEARTBEAT_ATTRIBUTES.resources(rows, ping_base=ping_base, team_name=team_name)


def heartbeat_resource(heartbeat: Heartbeat, *, public_base: str, team_name: str) -> dict[str, Any]:
    row = HEARTBEAT_ATTRIBUTES.columns.row(heartbeat)
    return heartbeat_resources([row], public_base=public_base, team_name=team_name)[0]


HEARTBEATS = TeamList(
    HEARTBEAT_ATTRIBUTES.columns,
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
