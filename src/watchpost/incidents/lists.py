"""Incidents and their timelines as the API shows them, and the pages of their lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import ListColumns
from watchpost.http.envelope import resource
from watchpost.http.pagination import PageRequest, ResourcePage, TeamList, paginate
from watchpost.incidents.models import Incident, IncidentEvent
from watchpost.incidents.schemas import IncidentFilters
from watchpost.incidents.service import INCIDENT, TIMELINE_ITEM, timeline_item_attributes

INCIDENT_COLUMNS = ListColumns(
    Incident,
    (
        "id",
        "name",
        "cause",
        "started_at",
        "acknowledged_at",
        "acknowledged_by",
        "resolved_at",
        "resolved_by",
        "monitor_id",
        "heartbeat_id",
        "collector_target_id",
        "manual",
        "metadata_",
        "created_at",
        "updated_at",
    ),
)


def incident_resources(rows: Iterable[Sequence[Any]], *, team_name: str) -> list[dict[str, Any]]:
    """Incidents as API resources, from rows of INCIDENT_COLUMNS.

    One comprehension that unpacks each row: 250 rows a page, so every call and attribute
    lookup per row shows in the page's cost. The status is Incident.status's rule.
    """
    return [
        {
            "id": str(id_),
            "type": INCIDENT,
            "attributes": {
                "name": name,
                "cause": cause,
                "status": "resolved"
                if resolved_at is not None
                else "acknowledged"
                if acknowledged_at is not None
                else "started",
                "started_at": started_at,
                "acknowledged_at": acknowledged_at,
                "acknowledged_by": acknowledged_by,
                "resolved_at": resolved_at,
                "resolved_by": resolved_by,
                "monitor_id": monitor_id,
                "heartbeat_id": heartbeat_id,
                "collector_target_id": collector_target_id,
                "manual": manual,
                "metadata": metadata,
                "team_name": team_name,
                "created_at": created_at,
                "updated_at": updated_at,
            },
        }
        for (
            id_,
            name,
            cause,
            started_at,
            acknowledged_at,
            acknowledged_by,
            resolved_at,
            resolved_by,
            monitor_id,
            heartbeat_id,
            collector_target_id,
            manual,
            metadata,
            created_at,
            updated_at,
        ) in rows
    ]


def incident_resource(incident: Incident, team_name: str) -> dict[str, Any]:
    return incident_resources([INCIDENT_COLUMNS.row(incident)], team_name=team_name)[0]


INCIDENTS = TeamList(
    INCIDENT_COLUMNS,
    {
        "monitor_id": Incident.monitor_id == bindparam("monitor_id"),
        "heartbeat_id": Incident.heartbeat_id == bindparam("heartbeat_id"),
        "resolved": Incident.resolved_at.is_not(None),
        "open": Incident.resolved_at.is_(None),
        "acknowledged": Incident.acknowledged_at.is_not(None),
        "unacknowledged": Incident.acknowledged_at.is_(None),
        "started_from": Incident.started_at >= bindparam("started_from"),
        "started_before": Incident.started_at < bindparam("started_before"),
    },
)


def _given(flag: bool | None, on: str, off: str) -> dict[str, bool]:
    """The condition a true/false filter turns on (neither when it is None)."""
    return {} if flag is None else {on if flag else off: True}


async def list_incidents(
    session: AsyncSession,
    *,
    team_id: int,
    team_name: str,
    filters: IncidentFilters,
    paging: PageRequest,
) -> ResourcePage:
    """A page of the team's incidents matching every given filter, oldest first."""
    given = {
        "monitor_id": filters.monitor_id,
        "heartbeat_id": filters.heartbeat_id,
        "started_from": filters.started_from,
        "started_before": filters.started_before,
        **_given(filters.resolved, "resolved", "open"),
        **_given(filters.acknowledged, "acknowledged", "unacknowledged"),
    }
    render = partial(incident_resources, team_name=team_name)
    return await INCIDENTS.page(session, paging, render, team_id=team_id, filters=given)


def timeline_item_resources(events: Iterable[IncidentEvent]) -> list[dict[str, Any]]:
    return [resource(TIMELINE_ITEM, event.id, timeline_item_attributes(event)) for event in events]


async def list_timeline(
    session: AsyncSession, *, incident: Incident, paging: PageRequest
) -> ResourcePage:
    """A page of the incident's timeline items, oldest first (ties in the order written)."""
    stmt = (
        select(IncidentEvent)
        .where(IncidentEvent.incident_id == incident.id)
        .order_by(IncidentEvent.at)
    )
    page = await paginate(session, stmt, paging, order_by=IncidentEvent.id)
    return page.map(timeline_item_resources)
