"""Claiming due rows: a lease per row, so no two workers run the same check.

PostgreSQL: `SELECT … FOR UPDATE SKIP LOCKED` picks due rows no other transaction holds,
then the lease is written in the same transaction. SQLite: one process, and the write
session's `BEGIN IMMEDIATE` makes the same statements exclusive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.engine.kinds import KINDS


@dataclass(frozen=True)
class Claim:
    """One leased check: the row as claimed and the due time the lease is for."""

    kind: str
    id: int
    due: datetime
    owner: str
    lease_expires_at: datetime
    row: Any


def due_rows(kind: str, now: datetime) -> Any:
    """The eligible rows due at `now` whose lease is free or expired, oldest due first."""
    spec = KINDS[kind]
    model = spec.model
    return (
        select(model)
        .where(
            model.next_check_at <= now,
            or_(model.lease_expires_at.is_(None), model.lease_expires_at < now),
            spec.eligible(now),
        )
        .order_by(model.next_check_at, model.id)
    )


async def claim(
    session: AsyncSession,
    *,
    kind: str,
    owner: str,
    now: datetime,
    limit: int,
    lease_for: Callable[[Any], timedelta],
) -> list[Claim]:
    """Lease up to `limit` due rows of `kind` to `owner`; call inside a write transaction."""
    model = KINDS[kind].model
    stmt = due_rows(kind, now).limit(limit).with_for_update(skip_locked=True)
    rows: Sequence[Any] = (await session.scalars(stmt)).all()
    if not rows:
        return []
    claims = [
        Claim(
            kind=kind,
            id=row.id,
            due=row.next_check_at,
            owner=owner,
            lease_expires_at=now + lease_for(row),
            row=row,
        )
        for row in rows
    ]
    await session.execute(
        update(model),
        [
            {"id": c.id, "lease_owner": owner, "lease_expires_at": c.lease_expires_at}
            for c in claims
        ],
    )
    return claims


async def release(session: AsyncSession, *, kind: str, owner: str, ids: Sequence[int]) -> int:
    """Give up `owner`'s leases on ids (left due, so any worker takes them at once)."""
    if not ids:
        return 0
    model = KINDS[kind].model
    result: Any = await session.execute(
        update(model)
        .where(model.id.in_(ids), model.lease_owner == owner)
        .values(lease_owner=None, lease_expires_at=None)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)
