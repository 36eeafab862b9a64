"""Incidents and their timelines as the API shows them, and the pages of their lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, partial
from typing import Any

from sqlalchemy import ColumnElement, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import ListColumns
from watchpost.http.envelope import resource
from watchpost.http.pagination import PagedSelect, PageRequest, ResourcePage, paginate
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


_CONDITIONS: dict[str, ColumnElement[bool]] = {
    "monitor_id": Incident.monitor_id == bindparam("monitor_id"),
    "heartbeat_id": Incident.heartbeat_id == bindparam("heartbeat_id"),
    "resolved": Incident.resolved_at.is_not(None),
    "open": Incident.resolved_at.is_(None),
    "acknowledged": Incident.acknowledged_at.is_not(None),
    "unacknowledged": Incident.acknowledged_at.is_(None),
    "started_from": Incident.started_at >= bindparam("started_from"),
    "started_before": Incident.started_at < bindparam("started_before"),
}
_team_incidents = INCIDENT_COLUMNS.select().where(Incident.team_id == bindparam("team_id"))


@cache
def _incident_list(conditions: tuple[str, ...]) -> PagedSelect:
    """The team's incidents meeting conditions (names of _CONDITIONS), as rows of
    INCIDENT_COLUMNS; built once per combination of filters."""
    stmt = _team_incidents.where(*(_CONDITIONS[name] for name in conditions))
    return PagedSelect(stmt, key=Incident.id)


def _conditions(filters: IncidentFilters) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The _CONDITIONS filters asks for, and the values they bind."""
    values = {
        name: getattr(filters, name)
        for name in ("monitor_id", "heartbeat_id", "started_from", "started_before")
        if getattr(filters, name) is not None
    }
    conditions = list(values)
    if filters.resolved is not None:
        conditions.append("resolved" if filters.resolved else "open")
    if filters.acknowledged is not None:
        conditions.append("acknowledged" if filters.acknowledged else "unacknowledged")
    return tuple(conditions), values


async def list_incidents(
    session: AsyncSession,
    *,
    team_id: int,
    team_name: str,
    filters: IncidentFilters,
    paging: PageRequest,
) -> ResourcePage:
    """A page of the team's incidents matching every given filter, oldest first."""
    conditions, values = _conditions(filters)
    render = partial(incident_resources, team_name=team_name)
    params = {"team_id": team_id, **values}
    return await _incident_list(conditions).page(session, paging, params, render)


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
