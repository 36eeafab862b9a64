"""Claiming an agent location's due checks: its `location_checks` rows with the monitors'
probe columns, leased as the engine leases its own (engine/claims.py).

PostgreSQL: `FOR UPDATE OF location_checks SKIP LOCKED`, so several agents of one location
share its checks and none runs one twice; SQLite: the write session's `BEGIN IMMEDIATE`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final, cast

from sqlalchemy import Integer, Table, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.base import UTCDateTime
from watchpost.engine.checked_rows import KINDS, MONITOR
from watchpost.engine.claims import Claim
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
_LEASE: Final = (
    update(_checks)
    .where(_checks.c.id == bindparam("lease_id"))
    .values(
        lease_owner=bindparam("lease_to"),
        lease_expires_at=bindparam("lease_until", type_=UTCDateTime()),
    )
)
_EARLIEST: Final = (
    select(func.min(_checks.c.next_check_at))
    .join(_monitors, _monitors.c.id == _checks.c.monitor_id)
    .where(_of_location, _free, _monitors.c.paused.is_(False))
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
    lease: timedelta,
) -> list[Claim]:
    """Lease up to `limit` of the location's due checks to `owner`; inside a write
    transaction."""
    rows: Sequence[Any] = (
        await session.execute(
            _CLAIM, {"claim_now": now, "claim_limit": limit, "claim_location": location_id}
        )
    ).all()
    claims = [
        Claim(
            kind=LOCATED,
            id=row.id,
            due=row.next_check_at,
            owner=owner,
            lease_expires_at=now + lease,
            row=row,
        )
        for row in rows
    ]
    if claims:
        await session.execute(
            _LEASE,
            [
                {"lease_id": c.id, "lease_to": owner, "lease_until": c.lease_expires_at}
                for c in claims
            ],
        )
    return claims


async def next_due_at(session: AsyncSession, *, location_id: int, now: datetime) -> datetime | None:
    """When the location's earliest check without a live lease falls due (None: none)."""
    found: datetime | None = await session.scalar(
        _EARLIEST, {"claim_now": now, "claim_location": location_id}
    )
    return found


async def release_all(session: AsyncSession, *, location_id: int, owner: str) -> int:
    """Give up every lease `owner` holds at the location (an agent stopping)."""
    result: Any = await session.execute(
        _RELEASE, {"claim_location": location_id, "release_owner": owner}
    )
    return int(result.rowcount or 0)
