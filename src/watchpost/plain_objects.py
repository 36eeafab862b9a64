"""The steps the plain collections' services share (http/collection.py): storing a new row,
one page of the team's rows and one row by id.

A service declares `TeamObjects(Model, TYPE)` and names its `page` and `get`; its `make`
stores the new row with `added`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import team_object
from watchpost.listing import Page, PageRequest, team_page
from watchpost.teams.service import Principal

T = TypeVar("T")


async def added(db: AsyncSession, row: T) -> T:
    """The row, added to the session and flushed (its id is known)."""
    db.add(row)
    await db.flush()
    return row


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
