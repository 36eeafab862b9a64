"""Incidents as the API sees them: read, report, list, delete; resolved with their object.

Every change of an incident's state, from here or elsewhere, is made by
`incidents.transitions.apply`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.db.queries import one_or_404, team_rows
from watchpost.errors import Conflict, InvalidRequest
from watchpost.history import service as history
from watchpost.incidents import models
from watchpost.incidents.models import Incident, IncidentEvent
from watchpost.incidents.rendering import INCIDENT
from watchpost.incidents.schemas import IncidentCreate
from watchpost.incidents.transitions import (
    ALERT_FIELDS,
    AUTOMATIC,
    Change,
    apply,
    open_incident_for,
    start,
)
from watchpost.policies.models import Policy

TIMELINE_ITEM = "incident_timeline_item"


async def get_incident(
    session: AsyncSession, *, team_id: int, incident_id: int, lock: bool = False
) -> Incident:
    """The team's incident, locked `FOR UPDATE` when `lock` (its comments are counted and
    added under that lock, so requests at once cannot pass the bound together)."""
    stmt = team_rows(Incident, team_id=team_id, id=incident_id)
    return await one_or_404(
        session, stmt.with_for_update() if lock else stmt, INCIDENT, incident_id
    )


DELETED_TEXTS: dict[str, str] = {
    "monitor_id": "Resolved: the monitor was deleted.",
    "heartbeat_id": "Resolved: the heartbeat was deleted.",
    "collector_target_id": "Resolved: the collector target was deleted.",
    "incoming_webhook_id": "Resolved: the incoming webhook was deleted.",
}
"""The reference an incident has to a deleted object → its `resolved` timeline text."""


async def forget_checked(
    session: AsyncSession, *, subject_type: str, subject_id: int, now: datetime
) -> None:
    """What deleting a checked object (subject_type monitor, heartbeat, collector_target or
    incoming_webhook)
    leaves behind: every open incident of it resolved, by Watchpost, and its check history
    forgotten.

    Call in the delete's transaction, before the row goes (an incident's reference then
    becomes null and no check could ever resolve it). Reports made by a person are resolved
    too: nothing would resolve them either, and an open incident about an object that no
    longer exists would claim a problem that cannot be looked into.
    """
    column = f"{subject_type}_id"
    found = await session.scalars(
        select(Incident)
        .where(getattr(Incident, column) == subject_id, Incident.resolved_at.is_(None))
        .order_by(Incident.id)
    )
    for incident in found.all():
        await apply(
            session, incident, Change.RESOLVED, at=now, by=AUTOMATIC, text=DELETED_TEXTS[column]
        )
    await history.forget(session, subject_type=subject_type, subject_id=subject_id)


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
    for field in ("monitor_id", "heartbeat_id"):
        wanted = getattr(data, field)
        if wanted is None:
            continue
        table = models.referenced(field)
        found = await session.scalar(
            select(table.c.id).where(table.c.team_id == team_id, table.c.id == wanted)
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
    if data.policy_id is not None and not await session.scalar(
        select(Policy.id).where(Policy.team_id == team_id, Policy.id == data.policy_id)
    ):
        problems.append(
            ("policy_id", f"policy_id {data.policy_id} is not an escalation policy of this team")
        )
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
    return await start(
        session,
        team_id=team_id,
        name=data.name,
        cause=data.summary,
        at=now,
        by=data.requester_email or team_name,
        manual=True,
        metadata=data.metadata,
        monitor_id=data.monitor_id,
        heartbeat_id=data.heartbeat_id,
        alerts={
            name: value
            for name, value in data.model_dump(include=set(ALERT_FIELDS)).items()
            if value is not None
        },
    )


async def delete_incident(session: AsyncSession, *, incident: Incident) -> None:
    """Delete the incident and its timeline."""
    await session.execute(delete(IncidentEvent).where(IncidentEvent.incident_id == incident.id))
    await session.delete(incident)
    await session.flush()
