"""What incidents do. The check engine and the API both open and resolve them through here."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.http.errors import Conflict, NotFound
from watchpost.incidents.models import Incident, IncidentEvent

INCIDENT = "incident"
AUTOMATIC = "Watchpost"
"""Who acknowledged or resolved, when nobody did by hand."""


async def add_event(
    session: AsyncSession,
    *,
    incident: Incident,
    kind: str,
    text: str,
    now: datetime,
    by: str | None = None,
) -> IncidentEvent:
    event = IncidentEvent(incident_id=incident.id, at=now, kind=kind, text=text, by=by)
    session.add(event)
    await session.flush()
    return event


async def open_incident(
    session: AsyncSession,
    *,
    team_id: int,
    name: str,
    cause: str,
    now: datetime,
    monitor_id: int | None = None,
    heartbeat_id: int | None = None,
    collector_target_id: int | None = None,
    manual: bool = False,
    metadata: dict[str, Any] | None = None,
    started_by: str | None = None,
) -> Incident:
    """A new open incident with its `started` timeline entry."""
    incident = Incident(
        team_id=team_id,
        name=name,
        cause=cause,
        monitor_id=monitor_id,
        heartbeat_id=heartbeat_id,
        collector_target_id=collector_target_id,
        manual=manual,
        metadata_=metadata or {},
        started_at=now,
        created_at=now,
        updated_at=now,
    )
    session.add(incident)
    await session.flush()
    await add_event(session, incident=incident, kind="started", text=cause, now=now, by=started_by)
    return incident


async def open_incident_for(
    session: AsyncSession,
    *,
    monitor_id: int | None = None,
    heartbeat_id: int | None = None,
    collector_target_id: int | None = None,
) -> Incident | None:
    """The open incident of an object, if any (there is at most one)."""
    stmt = select(Incident).where(Incident.resolved_at.is_(None))
    if monitor_id is not None:
        stmt = stmt.where(Incident.monitor_id == monitor_id)
    elif heartbeat_id is not None:
        stmt = stmt.where(Incident.heartbeat_id == heartbeat_id)
    elif collector_target_id is not None:
        stmt = stmt.where(Incident.collector_target_id == collector_target_id)
    else:
        raise ValueError("name the object whose incident is wanted")
    found: Incident | None = await session.scalar(stmt.order_by(Incident.id.desc()).limit(1))
    return found


async def get_incident(session: AsyncSession, *, team_id: int, incident_id: int) -> Incident:
    incident = await session.scalar(
        select(Incident).where(Incident.team_id == team_id, Incident.id == incident_id)
    )
    if incident is None:
        raise NotFound(INCIDENT, incident_id)
    return incident


async def acknowledge(
    session: AsyncSession, *, incident: Incident, now: datetime, by: str
) -> Incident:
    """Mark that someone is on it; 409 when already acknowledged or resolved."""
    if incident.resolved_at is not None:
        raise Conflict(f"Incident {incident.id} is already resolved")
    if incident.acknowledged_at is not None:
        raise Conflict(f"Incident {incident.id} is already acknowledged")
    incident.acknowledged_at = now
    incident.acknowledged_by = by
    incident.updated_at = now
    await add_event(
        session,
        incident=incident,
        kind="acknowledged",
        text=f"Acknowledged by {by}",
        now=now,
        by=by,
    )
    return incident


async def resolve(
    session: AsyncSession, *, incident: Incident, now: datetime, by: str, text: str | None = None
) -> Incident:
    """Close the incident; 409 when already resolved."""
    if incident.resolved_at is not None:
        raise Conflict(f"Incident {incident.id} is already resolved")
    incident.resolved_at = now
    incident.resolved_by = by
    incident.updated_at = now
    await add_event(
        session,
        incident=incident,
        kind="resolved",
        text=text or f"Resolved by {by}",
        now=now,
        by=by,
    )
    return incident


async def timeline(session: AsyncSession, *, incident: Incident) -> Sequence[IncidentEvent]:
    return (
        await session.scalars(
            select(IncidentEvent)
            .where(IncidentEvent.incident_id == incident.id)
            .order_by(IncidentEvent.at, IncidentEvent.id)
        )
    ).all()
