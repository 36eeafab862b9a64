"""What PagerDuty integrations do as objects: create, read, change, delete. No HTTP here;
the functions follow the plain collection's convention (http/collection.py)."""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.db.base import Base
from watchpost.errors import InvalidRequest
from watchpost.listing import Resource, resource
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.pagerduty.schemas import IntegrationCreate, IntegrationUpdate
from watchpost.plain_objects import TeamObjects, added, stamps
from watchpost.problems import team_name_problems
from watchpost.teams.service import Principal

TYPE: Final = "pagerduty_integration"
DEFAULT_NAME: Final = "PagerDuty"
_OBJECTS: Final = TeamObjects(PagerDutyIntegration, TYPE)
page, get = _OBJECTS.page, _OBJECTS.get


def _own_team(data: Any, caller: Principal) -> None:
    problems = team_name_problems(data.team_name, caller.team_name)
    if problems:
        raise InvalidRequest(problems)


def render(row: PagerDutyIntegration, team_name: str) -> Resource:
    attributes = {
        "name": row.name,
        "key": row.key,
        "severity": row.severity,
        "notify_alongside_primary_responder": row.notify_alongside_primary_responder,
        **stamps(row, team_name),
    }
    return resource(TYPE, row.id, attributes)


async def make(
    db: AsyncSession, caller: Principal, ctx: AppContext, data: IntegrationCreate
) -> PagerDutyIntegration:
    _own_team(data, caller)
    now = ctx.clock.now()
    row = PagerDutyIntegration(
        team_id=caller.team_id,
        name=data.name or DEFAULT_NAME,
        key=data.key,
        severity=data.severity,
        notify_alongside_primary_responder=data.notify_alongside_primary_responder
        if data.notify_alongside_primary_responder is not None
        else True,
    )
    return await added(db, row, now)


async def change(
    db: AsyncSession,
    caller: Principal,
    row: PagerDutyIntegration,
    ctx: AppContext,
    data: IntegrationUpdate,
) -> PagerDutyIntegration:
    """The sent fields change."""
    _own_team(data, caller)
    for name in ("name", "key", "severity", "notify_alongside_primary_responder"):
        value = getattr(data, name)
        if value is not None:
            setattr(row, name, value)
    row.updated_at = ctx.clock.now()
    await db.flush()
    return row


async def remove(db: AsyncSession, row: PagerDutyIntegration) -> None:
    """Delete the integration and its deliveries (read through the metadata: the delivery
    package is above this one)."""
    deliveries = Base.metadata.tables["deliveries"]
    await db.execute(delete(deliveries).where(deliveries.c.pagerduty_id == row.id))
    await db.delete(row)
    await db.flush()
