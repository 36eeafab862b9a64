"""Claiming an agent location's due checks: its `location_checks` rows with the monitors'
probe columns, then the collector targets it checks, leased as the engine leases its own
(engine/claims.py).

PostgreSQL: `FOR UPDATE OF location_checks SKIP LOCKED`, so several agents of one location
share its checks and none runs one twice; SQLite: the write session's `BEGIN IMMEDIATE`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Final, cast

from sqlalchemy import Integer, Table, and_, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.base import UTCDateTime
from watchpost.engine.checked_rows import KINDS, MONITOR, TARGET
from watchpost.engine.claims import (
    Claim,
    lease_update,
    leased_claims,
    write_leases,
)
from watchpost.engine.located import LOCATED
from watchpost.locations.models import LocationCheck

_checks = cast(Table, LocationCheck.__table__)
_monitors = KINDS[MONITOR].table
_now = bindparam("claim_now", type_=UTCDateTime())
_free = or_(_checks.c.lease_expires_at.is_(None), _checks.c.lease_expires_at < _now)
_of_location = _checks.c.location_id == bindparam("claim_location", type_=Integer())

_CLAIM: Final = (
    select(
        _checks.c.id,
        _checks.c.next_check_at,
        _checks.c.monitor_id,
        _checks.c.location_id,
        *(_monitors.c[name] for name in KINDS[MONITOR].probe_columns),
    )
    .join(_monitors, _monitors.c.id == _checks.c.monitor_id)
    .where(_of_location, _checks.c.next_check_at <= _now, _free, _monitors.c.paused.is_(False))
    .order_by(_checks.c.next_check_at, _checks.c.id)
    .limit(bindparam("claim_limit", type_=Integer()))
    .with_for_update(of=_checks, skip_locked=True)
)
_LEASE: Final = lease_update(_checks)
_EARLIEST: Final = (
    select(func.min(_checks.c.next_check_at))
    .join(_monitors, _monitors.c.id == _checks.c.monitor_id)
    .where(_of_location, _free, _monitors.c.paused.is_(False))
)
_targets = KINDS[TARGET].table
_LEASE_TARGET: Final = lease_update(_targets)
_TARGET_ELIGIBLE = and_(
    _targets.c.location_id == bindparam("claim_location", type_=Integer()),
    _targets.c.enabled.is_(True),
    or_(_targets.c.paused_until.is_(None), _targets.c.paused_until <= _now),
    or_(_targets.c.lease_expires_at.is_(None), _targets.c.lease_expires_at < _now),
)
_CLAIM_TARGETS: Final = (
    select(
        _targets.c.id,
        _targets.c.next_check_at,
        *(_targets.c[name] for name in KINDS[TARGET].probe_columns),
    )
    .where(_TARGET_ELIGIBLE, _targets.c.next_check_at <= _now)
    .order_by(_targets.c.next_check_at, _targets.c.id)
    .limit(bindparam("claim_limit", type_=Integer()))
    .with_for_update(skip_locked=True)
)
_EARLIEST_TARGET: Final = select(func.min(_targets.c.next_check_at)).where(_TARGET_ELIGIBLE)
_RELEASE_TARGETS: Final = (
    update(_targets)
    .where(
        _targets.c.location_id == bindparam("claim_location", type_=Integer()),
        _targets.c.lease_owner == bindparam("release_owner"),
    )
    .values(lease_owner=None, lease_expires_at=None)
)
_RELEASE: Final = (
    update(_checks)
    .where(_of_location, _checks.c.lease_owner == bindparam("release_owner"))
    .values(lease_owner=None, lease_expires_at=None)
)


async def claim_located(
    session: AsyncSession,
    *,
    location_id: int,
    owner: str,
    now: datetime,
    limit: int,
    lease: Callable[[str, Any], timedelta],
) -> list[Claim]:
    """Lease up to `limit` of the location's due checks to `owner` (monitors first, then
    collector targets), each for `lease(kind, row)`; inside a write transaction."""
    params = {"claim_now": now, "claim_limit": limit, "claim_location": location_id}
    rows: Sequence[Any] = (await session.execute(_CLAIM, params)).all()
    found = [(LOCATED, row) for row in rows]
    if len(found) < limit:
        params["claim_limit"] = limit - len(found)
        found += [(TARGET, row) for row in (await session.execute(_CLAIM_TARGETS, params)).all()]
    claims = leased_claims([(kind, row, now + lease(kind, row)) for kind, row in found], owner)
    for kind, statement in ((LOCATED, _LEASE), (TARGET, _LEASE_TARGET)):
        await write_leases(session, statement, [c for c in claims if c.kind == kind])
    return claims


async def next_due_at(session: AsyncSession, *, location_id: int, now: datetime) -> datetime | None:
    """When the location's earliest check without a live lease falls due (None: none)."""
    params = {"claim_now": now, "claim_location": location_id}
    found = [
        await session.scalar(_EARLIEST, params),
        await session.scalar(_EARLIEST_TARGET, params),
    ]
    return min((at for at in found if at is not None), default=None)


async def release_all(session: AsyncSession, *, location_id: int, owner: str) -> int:
    """Give up every lease `owner` holds at the location (an agent stopping)."""
    released = 0
    for statement in (_RELEASE, _RELEASE_TARGETS):
        result: Any = await session.execute(
            statement, {"claim_location": location_id, "release_owner": owner}
        )
        released += int(result.rowcount or 0)
    return released
