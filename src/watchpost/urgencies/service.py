"""What urgencies do as objects: create, read, change, delete. No HTTP here; the functions
follow the plain collection's convention (http/collection.py).

An urgency's `urgency_group_id` must name an urgency group of the team. Escalation steps name
urgencies (`urgency_id`, checked by policies/service.py); deleting one removes it from them.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.db.registry import all_metadata
from watchpost.errors import InvalidRequest
from watchpost.listing import Resource, resource
from watchpost.plain_groups import own_team, reference_problems
from watchpost.plain_objects import TeamObjects, added
from watchpost.teams.service import Principal
from watchpost.urgencies.models import Urgency, UrgencyGroup
from watchpost.urgencies.schemas import DEFAULTS, WAYS, UrgencyCreate, UrgencyFields, UrgencyUpdate

TYPE: Final = "urgency"
_OBJECTS: Final = TeamObjects(Urgency, TYPE)
page, get = _OBJECTS.page, _OBJECTS.get


def render(urgency: Urgency, team_name: str) -> Resource:
    attributes: dict[str, Any] = {"name": urgency.name}
    attributes |= {way: getattr(urgency, way) for way in WAYS}
    attributes |= {"urgency_group_id": urgency.urgency_group_id, "team_name": team_name}
    return resource(TYPE, urgency.id, attributes)


async def _check(db: AsyncSession, caller: Principal, data: UrgencyFields) -> None:
    own_team(data.team_name, caller)
    problems = await reference_problems(
        db, UrgencyGroup, "urgency_group_id", team_id=caller.team_id, ref=data.urgency_group_id
    )
    if problems:
        raise InvalidRequest(problems)


async def make(
    db: AsyncSession, caller: Principal, ctx: AppContext, data: UrgencyCreate
) -> Urgency:
    await _check(db, caller, data)
    now = ctx.clock.now()
    ways = {way: DEFAULTS[way] if (sent := getattr(data, way)) is None else sent for way in WAYS}
    urgency = Urgency(
        team_id=caller.team_id,
        name=data.name,
        urgency_group_id=data.urgency_group_id,
        **ways,
    )
    return await added(db, urgency, now)


async def change(
    db: AsyncSession, caller: Principal, urgency: Urgency, ctx: AppContext, data: UrgencyUpdate
) -> Urgency:
    """The sent fields change (`urgency_group_id: null` takes it out of its group)."""
    await _check(db, caller, data)
    for name in ("name", *WAYS, "urgency_group_id"):
        if name in data.model_fields_set:
            setattr(urgency, name, getattr(data, name))
    urgency.updated_at = ctx.clock.now()
    await db.flush()
    return urgency


async def _forget(db: AsyncSession, *, team_id: int, urgency_id: int) -> None:
    """Remove `urgency_id` from the team's escalation steps that name the urgency."""
    # The policies table by name: policies/service.py checks urgencies, so importing
    # policies here would make a cycle between the packages.
    policies = all_metadata().tables["policies"]
    rows = await db.execute(
        select(policies.c.id, policies.c.steps).where(policies.c.team_id == team_id)
    )
    for policy_id, steps in rows.all():
        if any(step.get("urgency_id") == urgency_id for step in steps):
            kept = [
                {key: value for key, value in step.items() if key != "urgency_id"}
                if step.get("urgency_id") == urgency_id
                else step
                for step in steps
            ]
            await db.execute(update(policies).where(policies.c.id == policy_id).values(steps=kept))


async def remove(db: AsyncSession, urgency: Urgency) -> None:
    """Delete the urgency; the escalation steps that named it name none (they e-mail). A step
    naming it locks its row (policies/service.py): the steps are read after the DELETE, which
    sees what was committed while it waited (plain_groups.py says how)."""
    named = {"team_id": urgency.team_id, "urgency_id": urgency.id}
    await db.delete(urgency)
    await db.flush()
    await _forget(db, **named)
