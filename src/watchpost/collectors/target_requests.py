"""From a request body to a stored collector target: the one path the API and the console
both take (with the request's Writing), so the kind's table (target_kinds.py) is checked the
same way for both."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors import service
from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.schemas import parse_target_create, parse_target_update
from watchpost.db.queries import team_object
from watchpost.monitors import placement
from watchpost.writing import Writing


async def create_target_from_body(
    write: Writing, collector_id: int, body: dict[str, Any]
) -> Row[Any]:
    """The collector must be the team's (else 404); then every rule at once (InvalidRequest)."""
    session, team_id = write.session, write.team_id
    await service.check_collector(session, team_id=team_id, collector_id=collector_id)
    data = parse_target_create(body)
    location_id = await placement.target_location(
        session, team_id=team_id, location_id=data.location_id
    )
    row = await service.create_target(
        session, team_id=team_id, collector_id=collector_id, data=data, box=write.box, now=write.now
    )
    if location_id is None:
        return row
    await session.execute(
        update(CollectorTarget).where(CollectorTarget.id == row.id).values(location_id=location_id)
    )
    table = CollectorTarget.__table__
    return (await session.execute(select(*table.c).where(table.c.id == row.id))).one()


async def update_target_from_body(
    write: Writing, target: CollectorTarget, body: dict[str, Any]
) -> CollectorTarget:
    """A PATCH body checked against the target as it will be, then stored."""
    data = parse_target_update(body, service.target_values(target))
    sent = set(data.model_fields_set)
    if "location_id" in sent:
        sent.discard("location_id")
        location_id = await placement.target_location(
            write.session, team_id=target.team_id, location_id=data.location_id
        )
        if location_id != target.location_id:
            target.location_id = location_id
            if target.enabled:
                target.schedule_now(write.now)  # checked at once from where it is now
    return await service.update_target(
        write.session, target=target, data=data, sent=sorted(sent), box=write.box, now=write.now
    )


async def find_target(session: AsyncSession, *, team_id: int, target_id: int) -> CollectorTarget:
    """The team's target of that id, whichever its collector (404 otherwise)."""
    return await team_object(
        session, CollectorTarget, service.TARGET, team_id=team_id, object_id=target_id
    )
