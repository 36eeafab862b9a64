"""What e-mail integrations do as objects: create, read, change, delete. No HTTP here; the
functions follow the plain collection's convention (http/collection.py)."""

from __future__ import annotations

from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.db.deletions import delete_named
from watchpost.db.queries import team_object, team_rows
from watchpost.incoming.email_schemas import EmailCreate, EmailUpdate
from watchpost.incoming.models import EmailIntegration
from watchpost.incoming.schemas import EMAIL_TARGETS
from watchpost.incoming.service import (
    apply_change,
    created_values,
    problems,
    shared_attributes,
    stamps,
)
from watchpost.listing import Page, PageRequest, Resource, paginate, resource
from watchpost.teams.service import Principal

TYPE: Final = "email_integration"
DEFAULT_NAME: Final = "E-mail integration"


def render(row: EmailIntegration, team_name: str) -> Resource:
    attributes = {**shared_attributes(row), "email_address": None, **stamps(row, team_name)}
    return resource(TYPE, row.id, attributes)


async def make(
    db: AsyncSession, caller: Principal, ctx: AppContext, data: EmailCreate
) -> EmailIntegration:
    values = created_values(data, DEFAULT_NAME)
    await problems(db, caller, data, values, EMAIL_TARGETS)
    now = ctx.clock.now()
    row = EmailIntegration(team_id=caller.team_id, created_at=now, updated_at=now, **values)
    db.add(row)
    await db.flush()
    return row


async def page(db: AsyncSession, caller: Principal, paging: PageRequest) -> Page[EmailIntegration]:
    rows = team_rows(EmailIntegration, team_id=caller.team_id)
    return await paginate(db, rows, paging, order_by=EmailIntegration.id)


async def get(db: AsyncSession, *, team_id: int, object_id: int) -> EmailIntegration:
    return await team_object(db, EmailIntegration, TYPE, team_id=team_id, object_id=object_id)


async def change(
    db: AsyncSession, caller: Principal, row: EmailIntegration, ctx: AppContext, data: EmailUpdate
) -> EmailIntegration:
    await apply_change(db, caller, row, ctx.clock.now(), data, EMAIL_TARGETS)
    return row


async def remove(db: AsyncSession, row: EmailIntegration) -> None:
    """Delete the integration and the status page resources showing it."""
    await delete_named(db, row, item_type="EmailIntegration")
