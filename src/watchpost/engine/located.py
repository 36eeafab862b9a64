"""Monitors checked from several locations: each location's latest result, and the verdict.

The writer (engine/writer.py) locks a batch's monitors, then the `location_checks` rows of
those that are `located` (in id order, after the monitors, as every writer of those rows
does, so none deadlocks). A result from a location is stored in its row (an agent's result
also moves the row's schedule and ends its lease); then every location's latest result is
weighed by the monitor's confirmation rule (monitors/confirmation.py), and that verdict is
what the monitor's status machine is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, cast

from sqlalchemy import Table, and_, bindparam, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.base import UTCDateTime
from watchpost.locations.models import Location, LocationCheck
from watchpost.monitors.confirmation import LocationResult, Verdict, verdict
from watchpost.probes.base import ProbeResult

LOCATED: Final = "location_check"
"""The kind of a claim an agent holds: one location's check of one monitor."""

WINDOW_SLACK_S: Final = 30
"""A location's result counts for two intervals plus this long (then it is silent)."""

_checks = cast(Table, LocationCheck.__table__)
_locations = cast(Table, Location.__table__)


@dataclass(slots=True)
class Spot:
    """A location's check of a monitor, as locked for the batch."""

    id: int
    monitor_id: int
    location_id: int
    lease_owner: str | None
    next_check_at: datetime | None
    last_checked_at: datetime | None
    last_ok: bool | None
    last_error: str | None
    last_latency_ms: float | None
    name: str
    is_server: bool
    offline: bool
    changed: bool = False

    def result(self) -> LocationResult:
        return LocationResult(
            name=self.name,
            checked_at=self.last_checked_at,
            ok=self.last_ok,
            error=self.last_error,
            latency_ms=self.last_latency_ms,
            offline=self.offline,
        )


_LOCK = (
    select(
        _checks.c.id,
        _checks.c.monitor_id,
        _checks.c.location_id,
        _checks.c.lease_owner,
        _checks.c.next_check_at,
        _checks.c.last_checked_at,
        _checks.c.last_ok,
        _checks.c.last_error,
        _checks.c.last_latency_ms,
        _locations.c.name,
        _locations.c.is_server,
        # Offline: silent past its offline_after, or an agent location never heard from.
        or_(
            _locations.c.offline_since.is_not(None),
            and_(_locations.c.is_server.is_(False), _locations.c.last_seen_at.is_(None)),
        ),
    )
    .join(_locations, _locations.c.id == _checks.c.location_id)
    .where(_checks.c.monitor_id.in_(bindparam("spot_monitors", expanding=True)))
    .order_by(_checks.c.id)
    .with_for_update(of=_checks)
)
_WRITE = (
    update(_checks)
    .where(_checks.c.id == bindparam("s_id"))
    .values(
        next_check_at=bindparam("s_next", type_=UTCDateTime()),
        lease_owner=bindparam("s_owner"),
        lease_expires_at=bindparam("s_until", type_=UTCDateTime()),
        last_checked_at=bindparam("s_checked", type_=UTCDateTime()),
        last_ok=bindparam("s_ok"),
        last_error=bindparam("s_error"),
        last_latency_ms=bindparam("s_latency"),
    )
)


async def lock_spots(session: AsyncSession, monitor_ids: Iterable[int]) -> dict[int, list[Spot]]:
    """The location rows of these monitors, locked, by monitor."""
    ids = sorted(set(monitor_ids))
    found: dict[int, list[Spot]] = {}
    if not ids:
        return found
    for row in await session.execute(_LOCK, {"spot_monitors": ids}):
        spot = Spot(*row)
        found.setdefault(spot.monitor_id, []).append(spot)
    return found


def store(spot: Spot, result: ProbeResult, *, at: datetime) -> None:
    """The location's latest result (a late one never replaces a newer one)."""
    spot.changed = True
    if spot.last_checked_at is not None and at < spot.last_checked_at:
        return
    spot.last_checked_at = at
    spot.last_ok = result.ok
    spot.last_error = result.error
    spot.last_latency_ms = result.latency_ms


def judge(
    spots: Sequence[Spot], *, rule: str, at_least: int | None, interval_s: int, at: datetime
) -> Verdict:
    """The confirmation rule over every location's latest result as of `at`."""
    since = at - timedelta(seconds=2 * interval_s + WINDOW_SLACK_S)
    return verdict([s.result() for s in spots], rule=rule, at_least=at_least, since=since)


def combined(found: Verdict, result: ProbeResult) -> ProbeResult:
    """The verdict as one check's result for the status machine: this result's timing and
    facts, the verdict's outcome and the error naming where it failed."""
    if found.down:
        return ProbeResult(
            ok=False, latency_ms=result.latency_ms, error=found.error, details=result.details
        )
    return ProbeResult(ok=True, latency_ms=result.latency_ms, details=result.details)


async def write_spots(session: AsyncSession, spots: Iterable[Spot]) -> None:
    params: list[dict[str, Any]] = [
        {
            "s_id": s.id,
            "s_next": s.next_check_at,
            "s_owner": s.lease_owner,
            "s_until": None,
            "s_checked": s.last_checked_at,
            "s_ok": s.last_ok,
            "s_error": s.last_error,
            "s_latency": s.last_latency_ms,
        }
        for s in spots
        if s.changed
    ]
    if params:
        await session.execute(_WRITE, params)
