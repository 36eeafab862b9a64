"""The steps the plain collections' services share (http/collection.py): storing a new row,
one page of the team's rows, one row by id and the stamps a response shows.

A service declares `TeamObjects(Model, TYPE)` and names its `page` and `get`; its `make`
stores the new row with `added`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.db import queries
from watchpost.db.queries import team_object
from watchpost.listing import Page, PageRequest, team_page
from watchpost.teams.service import Principal

T = TypeVar("T")


async def added(db: AsyncSession, row: queries.RowT, now: datetime) -> queries.RowT:
    """The new row, created and updated at now, added to the session and flushed (its id is
    known)."""
    stamped: Any = row
    stamped.created_at = stamped.updated_at = now
    return await queries.added(db, row)


def stamps(row: Any, team_name: str) -> dict[str, Any]:
    """The attributes every plain object ends with: its team's name, when it was created and
    last changed."""
    return {
        "team_name": team_name,
        "created_at": isoformat_ms(row.created_at),
        "updated_at": isoformat_ms(row.updated_at),
    }


@dataclass(frozen=True)
class TeamObjects(Generic[T]):
    """How one kind of the team's objects is read: a page of them, oldest (lowest id) first,
    and one by id (a not-found error naming TYPE when it is not the team's)."""

    model: type[T]
    TYPE: str

    async def page(self, db: AsyncSession, caller: Principal, paging: PageRequest) -> Page[T]:
        return await team_page(db, self.model, paging, team_id=caller.team_id)

    async def get(self, db: AsyncSession, *, team_id: int, object_id: int) -> T:
        return await team_object(db, self.model, self.TYPE, team_id=team_id, object_id=object_id)
