"""Incidents and their timelines as the API shows them, and the pages of their lists."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents.models import Incident, IncidentEvent
from watchpost.incidents.rendering import INCIDENT_COLUMNS, incident_resources
from watchpost.incidents.schemas import IncidentFilters
from watchpost.incidents.service import TIMELINE_ITEM, timeline_item_attributes
from watchpost.listing import PageRequest, ResourcePage, TeamList, paginate, resource

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
