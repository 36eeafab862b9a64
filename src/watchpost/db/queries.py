"""Query helpers every domain's service uses."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar, cast

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from watchpost.db.base import Base
from watchpost.errors import InvalidRequest, NotFound, Problem

T = TypeVar("T")
RowT = TypeVar("RowT", bound=Base)


async def one_or_404(
    session: AsyncSession,
    stmt: Select[tuple[T]],
    resource_type: str,
    object_id: int,
    *,
    params: Mapping[str, Any] | None = None,
) -> T:
    """The one object stmt selects (already scoped to the caller's team), else a 404."""
    found = await session.scalar(stmt, params)
    if found is None:
        raise NotFound(resource_type, object_id)
    return found


def team_rows(model: type[T], *, team_id: int, **equal: int) -> Select[tuple[T]]:
    """The team's rows of model whose named columns hold the values given (a parent's id)."""
    columns = cast(Any, model).__table__.c  # a mapped class (id, team_id), typed as T
    return select(model).where(
        columns.team_id == team_id, *[columns[name] == value for name, value in equal.items()]
    )


async def team_object(
    session: AsyncSession,
    model: type[T],
    resource_type: str,
    *,
    team_id: int,
    object_id: int,
    **parent: int,
) -> T:
    """The team's row of model with that id (and that `parent`, a column and its value, when
    given), else a 404 naming resource_type."""
    stmt = team_rows(model, team_id=team_id, **parent, id=object_id)
    return await one_or_404(session, stmt, resource_type, object_id)


async def claim_due(
    session: AsyncSession,
    model: type[T],
    due_at: InstrumentedAttribute[Any],
    *,
    now: datetime,
    limit: int,
) -> list[T]:
    """Up to `limit` rows of model whose `due_at` has come, soonest first (then by id), locked
    `FOR UPDATE SKIP LOCKED` so that one worker takes each. Call in a write transaction."""
    stmt = (
        select(model)
        .where(due_at <= now)
        .order_by(due_at, cast(Any, model).id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    return list(await session.scalars(stmt))


def not_a_group(field: str, group_id: int) -> list[Problem]:
    """The 422 problem of `field` (monitor_group_id …) naming no group of the team."""
    kind = field.removesuffix("_id").replace("_", " ")
    return [(field, f"{field} {group_id} is not a {kind} of this team")]


async def group_problems(
    session: AsyncSession, model: type[Any], field: str, *, team_id: int, group_id: int | None
) -> list[Problem]:
    """not_a_group() unless group_id is None or names one of the team's rows of model."""
    if group_id is None:
        return []
    columns = model.__table__.c
    stmt = select(columns.id).where(columns.team_id == team_id, columns.id == group_id)
    found = await session.scalar(stmt)
    return not_a_group(field, group_id) if found is None else []


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
