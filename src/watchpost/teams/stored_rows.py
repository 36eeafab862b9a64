"""New rows of a table: the count check before adding one, and adding it."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.base import Base
from watchpost.errors import InvalidRequest

RowT = TypeVar("RowT", bound=Base)


async def check_held(
    session: AsyncSession,
    owner_column: Any,
    owner_id: int,
    *,
    limit: int,
    full: str,
    status: int = 422,
) -> None:
    """An InvalidRequest (`status`) saying `full` when the rows whose `owner_column` is
    `owner_id` number `limit` or more (the caller holds the owner's lock, so two adds cannot
    both pass the count)."""
    held = await session.scalar(select(func.count()).where(owner_column == owner_id))
    if (held or 0) >= limit:
        raise InvalidRequest([(None, full)], status=status)


async def added(session: AsyncSession, row: RowT) -> RowT:
    """The row, added to the session and flushed (its id assigned)."""
    session.add(row)
    await session.flush()
    return row
