"""Claiming due rows: a lease per row, so no two workers run the same check.

PostgreSQL: `SELECT … FOR UPDATE SKIP LOCKED` picks due rows no other transaction holds,
then the lease is written in the same transaction. SQLite: one process, and the write
session's `BEGIN IMMEDIATE` makes the same statements exclusive.

A lease is short (WATCHPOST_ENGINE_LEASE_MARGIN) and its worker renews it while the check
is in flight (`renew`), so a live worker keeps its checks however long they take, and a
dead worker's are free again one margin after its last renewal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Integer, Select, Table, Update, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.base import UTCDateTime
from watchpost.engine.checked_rows import KINDS
from watchpost.engine.schedule import OFF_SCHEDULE_PER_CLAIM, spread
from watchpost.settings import Settings


@dataclass(frozen=True)
class Claim:
    """One leased check: the row as claimed and the due time the lease is for.

    `row` holds the claimed row's id, next_check_at and its kind's `probe_columns`, read by
    attribute (a SQLAlchemy Row, not an ORM object): what the probe input is made of.
    """

    kind: str
    id: int
    due: datetime
    owner: str
    lease_expires_at: datetime
    row: Any


_now = bindparam("claim_now", type_=UTCDateTime())
_due_by = bindparam("claim_due_by", type_=UTCDateTime())
_limit = bindparam("claim_limit", type_=Integer())


def due_rows(kind: str, now: Any, due_by: Any = None) -> Select[Any]:
    """The eligible rows due by `due_by` (default: `now`) whose lease is free or expired at
    `now`, oldest due first."""
    spec = KINDS[kind]
    c = spec.table.c
    return (
        select(c.id, c.next_check_at, *(c[name] for name in spec.probe_columns))
        .where(
            c.next_check_at <= (now if due_by is None else due_by),
            or_(c.lease_expires_at.is_(None), c.lease_expires_at < now),
            spec.eligible(now),
        )
        .order_by(c.next_check_at, c.id)
    )


def lease_update(table: Table) -> Update:
    """The executemany UPDATE that leases rows of `table` (lease_id, lease_to, lease_until)."""
    return (
        update(table)
        .where(table.c.id == bindparam("lease_id"))
        .values(
            lease_owner=bindparam("lease_to"),
            lease_expires_at=bindparam("lease_until", type_=UTCDateTime()),
        )
    )


def _move(kind: str) -> Update:
    """To a later due time, its lease (an expired one, if any) void."""
    c = KINDS[kind].table.c
    return (
        update(KINDS[kind].table)
        .where(c.id == bindparam("move_id"))
        .values(
            next_check_at=bindparam("move_to", type_=UTCDateTime()),
            lease_owner=None,
            lease_expires_at=None,
        )
    )


# Built once (Core, on the tables): building a statement per call, and the ORM's handling of
# whole rows, cost more than running it.
_CLAIM: Final = {
    kind: due_rows(kind, _now, _due_by).limit(_limit).with_for_update(skip_locked=True)
    for kind in KINDS
}
_LEASE: Final = {kind: lease_update(spec.table) for kind, spec in KINDS.items()}
_MOVE: Final = {kind: _move(kind) for kind in KINDS}


def _renew(kind: str) -> Update:
    c = KINDS[kind].table.c
    held = c.lease_owner == bindparam("renew_owner")
    # Rows a transaction holds are skipped, never waited for: on PostgreSQL those are this
    # engine's own results being written (their leases end with that write), a change of
    # the object (which voids the lease) or a claim of a lease that had already expired.
    # So renewing never waits behind, nor deadlocks with, the writer.
    free = (
        select(c.id)
        .where(held, c.id.in_(bindparam("renew_ids", expanding=True)))
        .with_for_update(skip_locked=True)
    )
    return (
        update(KINDS[kind].table)
        .where(held, c.id.in_(free.scalar_subquery()))
        .values(lease_expires_at=bindparam("renew_until", type_=UTCDateTime()))
        .returning(c.id)
    )


_RENEW: Final = {kind: _renew(kind) for kind in KINDS}
RENEW_CHUNK: Final = 1000
"""Most ids in one renewing UPDATE (bound parameters stay far below SQLite's limit)."""


def leased_claims(found: Iterable[tuple[str, Any, datetime]], owner: str) -> list[Claim]:
    """The claims of `found` (kind, claimed row, lease end) triples, leased to `owner`."""
    return [
        Claim(
            kind=kind,
            id=row.id,
            due=row.next_check_at,
            owner=owner,
            lease_expires_at=until,
            row=row,
        )
        for kind, row, until in found
    ]


async def write_leases(session: AsyncSession, statement: Update, claims: Sequence[Claim]) -> None:
    """Write the leases of `claims` with `statement`, an executemany UPDATE of lease_update's."""
    if claims:
        leases = [
            {"lease_id": c.id, "lease_to": c.owner, "lease_until": c.lease_expires_at}
            for c in claims
        ]
        await session.execute(statement, leases)


@dataclass(frozen=True)
class Claimed:
    """What one claim of one kind leased."""

    claims: list[Claim]
    room: int
    """What is left of the room for checks off their schedule (engine/schedule.py)."""


async def claim(
    session: AsyncSession,
    *,
    kind: str,
    owner: str,
    now: datetime,
    limit: int,
    lease: timedelta,
    settings: Settings,
    room: int,
    due_by: datetime | None = None,
) -> Claimed:
    """Lease up to `limit` rows of `kind` due by `due_by` (default: `now`) to `owner`, of which
    at most `room` off their schedule (the others of those move to their next slot); call
    inside a write transaction."""
    values = {"claim_now": now, "claim_due_by": due_by or now, "claim_limit": limit}
    rows: Sequence[Any] = (await session.execute(_CLAIM[kind], values)).all()
    if not rows:
        return Claimed(claims=[], room=room)
    spec = KINDS[kind]
    due, moved, room = spread(
        kind, rows, interval_s=lambda row: spec.interval_s(row, settings), now=now, room=room
    )
    if moved:
        await session.execute(
            _MOVE[kind], [{"move_id": row.id, "move_to": slot} for row, slot in moved]
        )
    claims = leased_claims([(kind, row, now + lease) for row in due], owner)
    await write_leases(session, _LEASE[kind], claims)
    return Claimed(claims=claims, room=room)


async def claim_due(
    session: AsyncSession,
    *,
    owner: str,
    now: datetime,
    limit: int,
    lease: timedelta,
    settings: Settings,
    due_by: datetime | None = None,
) -> list[Claim]:
    """Lease up to `limit` checks of every kind (monitors first) due by `due_by` (default:
    `now`), at most OFF_SCHEDULE_PER_CLAIM of them off their schedule; call inside a write
    transaction."""
    claimed: list[Claim] = []
    room = OFF_SCHEDULE_PER_CLAIM
    for kind in KINDS:
        if len(claimed) >= limit:
            break
        batch = await claim(
            session,
            kind=kind,
            owner=owner,
            now=now,
            limit=limit - len(claimed),
            lease=lease,
            settings=settings,
            room=room,
            due_by=due_by,
        )
        claimed += batch.claims
        room = batch.room
    return claimed


def by_kind(claims: Iterable[Claim]) -> dict[str, list[int]]:
    """The ids of `claims`, by kind."""
    ids: dict[str, list[int]] = {}
    for item in claims:
        ids.setdefault(item.kind, []).append(item.id)
    return ids


_EARLIEST: Final = {
    kind: select(func.min(spec.table.c.next_check_at)).where(
        or_(spec.table.c.lease_expires_at.is_(None), spec.table.c.lease_expires_at < _now),
        spec.eligible(_now),
        spec.table.c.next_check_at.is_not(None),
    )
    for kind, spec in KINDS.items()
}


async def next_due_at(session: AsyncSession, *, now: datetime) -> datetime | None:
    """When the earliest eligible row without a live lease falls due (None: none). A row
    whose lease expired (its worker died) counts, so that it is taken over."""
    earliest: datetime | None = None
    for stmt in _EARLIEST.values():
        found = await session.scalar(stmt, {"claim_now": now})
        if found is not None and (earliest is None or found < earliest):
            earliest = found
    return earliest


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


async def renew(
    session: AsyncSession, *, kind: str, owner: str, ids: Sequence[int], until: datetime
) -> set[int]:
    """Extend `owner`'s leases on ids to `until`; the ids it still held.

    Only rows still leased to `owner` change: a lease another worker took over (after it
    expired) or that a change of the object cleared stays lost, and that check's result
    will be dropped. On PostgreSQL a concurrent claim either holds the row first (it is
    skipped here, and then has another owner) or skips it (the row is locked here).
    """
    renewed: set[int] = set()
    ordered = sorted(ids)
    for start in range(0, len(ordered), RENEW_CHUNK):
        result = await session.scalars(
            _RENEW[kind],
            {
                "renew_owner": owner,
                "renew_ids": ordered[start : start + RENEW_CHUNK],
                "renew_until": until,
            },
        )
        renewed.update(result)
    return renewed
