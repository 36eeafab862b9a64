"""What incidents do. The check engine and the API both open and resolve them through here."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.db.queries import one_or_404
from watchpost.heartbeats.models import Heartbeat
from watchpost.http.errors import Conflict, InvalidRequest
from watchpost.incidents.models import Incident, IncidentEvent
from watchpost.incidents.schemas import IncidentCreate
from watchpost.monitors.models import Monitor

INCIDENT = "incident"
TIMELINE_ITEM = "incident_timeline_item"
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
    return await one_or_404(
        session,
        select(Incident).where(Incident.team_id == team_id, Incident.id == incident_id),
        INCIDENT,
        incident_id,
    )


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


DELETED_TEXTS: dict[str, str] = {
    "monitor_id": "Resolved: the monitor was deleted.",
    "heartbeat_id": "Resolved: the heartbeat was deleted.",
    "collector_target_id": "Resolved: the collector target was deleted.",
}
"""The reference an incident has to a deleted object → its `resolved` timeline text."""


async def resolve_for_deleted(
    session: AsyncSession,
    *,
    now: datetime,
    monitor_id: int | None = None,
    heartbeat_id: int | None = None,
    collector_target_id: int | None = None,
) -> None:
    """Resolve, by Watchpost, every open incident of a monitor, heartbeat or collector target
    being deleted.

    Call in the delete's transaction, before the row goes (its reference then becomes null
    and no check could ever resolve the incident). Reports made by a person are resolved
    too: nothing would resolve them either, and an open incident about an object that no
    longer exists would claim a problem that cannot be looked into.
    """
    named = {
        "monitor_id": monitor_id,
        "heartbeat_id": heartbeat_id,
        "collector_target_id": collector_target_id,
    }
    ((column, subject_id),) = [(k, v) for k, v in named.items() if v is not None]
    found = await session.scalars(
        select(Incident)
        .where(getattr(Incident, column) == subject_id, Incident.resolved_at.is_(None))
        .order_by(Incident.id)
    )
    for incident in found.all():
        await resolve(session, incident=incident, now=now, by=AUTOMATIC, text=DELETED_TEXTS[column])


async def timeline(session: AsyncSession, *, incident: Incident) -> Sequence[IncidentEvent]:
    return (
        await session.scalars(
            select(IncidentEvent)
            .where(IncidentEvent.incident_id == incident.id)
            .order_by(IncidentEvent.at, IncidentEvent.id)
        )
    ).all()


# ------------------------------------------------------------------------------- the API


def timeline_item_attributes(event: IncidentEvent) -> dict[str, Any]:
    return {"at": isoformat_ms(event.at), "kind": event.kind, "text": event.text, "by": event.by}


async def _subject_problems(
    session: AsyncSession, *, team_id: int, data: IncidentCreate
) -> list[tuple[str | None, str]]:
    problems: list[tuple[str | None, str]] = []
    checks: tuple[tuple[str, int | None, Any], ...] = (
        ("monitor_id", data.monitor_id, Monitor),
        ("heartbeat_id", data.heartbeat_id, Heartbeat),
    )
    for field, wanted, model in checks:
        if wanted is None:
            continue
        found = await session.scalar(
            select(model.id).where(model.team_id == team_id, model.id == wanted)
        )
        if found is None:
            noun = field.removesuffix("_id")
            problems.append((field, f"{field} {wanted} does not name a {noun} of this team"))
    if data.monitor_id is not None and data.heartbeat_id is not None:
        message = "give either monitor_id or heartbeat_id, not both"
        problems += [("monitor_id", message), ("heartbeat_id", message)]
    return problems


async def report_incident(
    session: AsyncSession, *, team_id: int, team_name: str, data: IncidentCreate, now: datetime
) -> Incident:
    """A manually reported incident; 409 when its monitor or heartbeat already has one open."""
    problems = await _subject_problems(session, team_id=team_id, data=data)
    if problems:
        raise InvalidRequest(problems)
    if data.monitor_id is not None or data.heartbeat_id is not None:
        current = await open_incident_for(
            session, monitor_id=data.monitor_id, heartbeat_id=data.heartbeat_id
        )
        if current is not None:
            subject = "monitor" if data.monitor_id is not None else "heartbeat"
            raise Conflict(
                f"The {subject} already has an open incident (id = {current.id}); "
                "acknowledge or resolve that one"
            )
    return await open_incident(
        session,
        team_id=team_id,
        name=data.name,
        cause=data.summary,
        now=now,
        monitor_id=data.monitor_id,
        heartbeat_id=data.heartbeat_id,
        manual=True,
        metadata=data.metadata,
        started_by=data.requester_email or team_name,
    )


async def delete_incident(session: AsyncSession, *, incident: Incident) -> None:
    """Delete the incident and its timeline."""
    await session.execute(delete(IncidentEvent).where(IncidentEvent.incident_id == incident.id))
    await session.delete(incident)
    await session.flush()
