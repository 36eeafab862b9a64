"""What e-mail integrations do as objects: create, read, change, delete. No HTTP here; the
functions follow the plain collection's convention (http/collection.py)."""

from __future__ import annotations

from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.db.deletions import delete_named
from watchpost.incoming.email_schemas import EmailCreate, EmailUpdate
from watchpost.incoming.models import EmailIntegration
from watchpost.incoming.schemas import EMAIL_TARGETS
from watchpost.incoming.service import (
    apply_change,
    created_values,
    shared_attributes,
)
from watchpost.listing import Resource, resource
from watchpost.plain_objects import TeamObjects, added, stamps
from watchpost.teams.service import Principal

TYPE: Final = "email_integration"
DEFAULT_NAME: Final = "E-mail integration"
_OBJECTS: Final = TeamObjects(EmailIntegration, TYPE)
page, get = _OBJECTS.page, _OBJECTS.get


def render(row: EmailIntegration, team_name: str) -> Resource:
    attributes = {**shared_attributes(row), "email_address": None, **stamps(row, team_name)}
    return resource(TYPE, row.id, attributes)


async def make(
    db: AsyncSession, caller: Principal, ctx: AppContext, data: EmailCreate
) -> EmailIntegration:
    values = await created_values(db, caller, data, DEFAULT_NAME, EMAIL_TARGETS)
    row = EmailIntegration(team_id=caller.team_id, **values)
    return await added(db, row, ctx.clock.now())


async def change(
    db: AsyncSession, caller: Principal, row: EmailIntegration, ctx: AppContext, data: EmailUpdate
) -> EmailIntegration:
    await apply_change(db, caller, row, ctx.clock.now(), data, EMAIL_TARGETS)
    return row


async def remove(db: AsyncSession, row: EmailIntegration) -> None:
    """Delete the integration and the status page resources showing it."""
    await delete_named(db, row, item_type="EmailIntegration")
