"""Query helpers every domain's service uses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.errors import NotFound

T = TypeVar("T")


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
