"""What escalation policy steps do to an incident (delivery.escalation.Incidents), through
this package's one way of changing incidents."""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import Clock
from watchpost.errors import InvalidRequest
from watchpost.incidents import comments, service
from watchpost.incidents.models import Incident
from watchpost.incidents.transitions import Change, apply

log = logging.getLogger("watchpost.incidents")


class PolicyActions:
    """delivery.escalation.Incidents for the incidents of this database, at the clock's time."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    async def resolve(self, session: AsyncSession, incident_id: int, *, by: str) -> None:
        incident = await session.get(Incident, incident_id)
        if incident is not None and incident.resolved_at is None:
            await apply(session, incident, Change.RESOLVED, at=self.clock.now(), by=by)

    async def remove(self, session: AsyncSession, incident_id: int) -> None:
        incident = await session.get(Incident, incident_id)
        if incident is not None:
            await service.delete_incident(session, incident=incident)

    async def comment(
        self, session: AsyncSession, incident_id: int, *, content: str, by: str
    ) -> None:
        incident = await session.get(Incident, incident_id)
        if incident is None:
            return
        try:
            await comments.add_comment(
                session,
                incident,
                content=content[: comments.MAX_CONTENT],
                by=by,
                now=self.clock.now(),
            )
        except InvalidRequest:
            log.warning(
                "incident %s holds too many comments; instructions not written", incident_id
            )
