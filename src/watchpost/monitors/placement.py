"""Which locations check a monitor, and keeping its `location_checks` rows to match.

A monitor is checked from every location it names in `locations` and from every shared
(not private) location whose region is among its `regions`; a team's private location only
for that team's monitors. When nothing matches, the server's own location checks it, so a
monitor is never left unchecked. While only the server checks a monitor it is checked as it
always was (its own row is the schedule, its result its verdict, no location rows); once any
agent location checks it, it is `located`: each location keeps its latest result in a
`location_checks` row (the server's too, never scheduled) and the verdict is made from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.errors import InvalidRequest
from watchpost.locations.models import Location, LocationCheck
from watchpost.monitors.models import Monitor

CHUNK: Final = 500
"""Monitors placed per round of statements when every monitor is placed again."""


@dataclass(frozen=True)
class Place:
    id: int
    name: str
    region: str
    private: bool
    team_id: int | None
    is_server: bool


async def places(session: AsyncSession) -> list[Place]:
    """Every location (a short table), the server's first."""
    rows = await session.execute(
        select(
            Location.id,
            Location.name,
            Location.region,
            Location.private,
            Location.team_id,
            Location.is_server,
        ).order_by(Location.is_server.desc(), Location.name)
    )
    return [Place(*row) for row in rows]


def usable(places_: Iterable[Place], team_id: int) -> list[Place]:
    """The locations a team's monitors may name: shared ones and the team's own."""
    return [p for p in places_ if p.team_id is None or p.team_id == team_id]


def chosen(
    places_: Sequence[Place], *, team_id: int, regions: Iterable[str], names: Iterable[str]
) -> list[Place]:
    """The locations that check a monitor of the team (the server's when nothing else does;
    none only when even that is not there: a database made without migrations)."""
    wanted, in_regions = set(names), set(regions)
    picked = [
        p
        for p in usable(places_, team_id)
        if p.name in wanted or (not p.private and p.region in in_regions)
    ]
    return picked or [p for p in places_ if p.is_server]


async def location_problems(
    session: AsyncSession, *, team_id: int, names: Any
) -> list[tuple[str | None, str]]:
    """Each name in a monitor's `locations` must be a location its team may use."""
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return []  # the model reports the type
    known = {p.name for p in usable(await places(session), team_id)}
    return [
        ("locations", f"There is no location named '{name}' (see GET /api/v2/locations).")
        for name in names
        if name not in known
    ]


async def target_location(
    session: AsyncSession, *, team_id: int, location_id: int | None
) -> int | None:
    """A collector target's location as stored: None for the server's own; a location its
    team may not use is refused."""
    if location_id is None:
        return None
    found = next((p for p in usable(await places(session), team_id) if p.id == location_id), None)
    if found is None:
        raise InvalidRequest(
            [("location_id", f"There is no location {location_id} (see GET /api/v2/locations).")]
        )
    return None if found.is_server else found.id


async def place(session: AsyncSession, monitor: Monitor, *, now: datetime, recheck: bool) -> None:
    """Set the monitor's `checked_here` and `located` and its location rows; `recheck`: its
    check settings changed, so every location checks it at once (a running check is void)."""
    await _place(session, await places(session), [monitor], now=now, recheck=recheck)


async def place_all(session: AsyncSession, *, now: datetime) -> int:
    """Place every monitor again (after a location was added, changed or removed); how many
    changed where they are checked from."""
    found = await places(session)
    changed = 0
    last_id = 0
    while True:
        batch = list(
            await session.scalars(
                select(Monitor).where(Monitor.id > last_id).order_by(Monitor.id).limit(CHUNK)
            )
        )
        if not batch:
            return changed
        changed += await _place(session, found, batch, now=now, recheck=False)
        last_id = batch[-1].id


async def due_now(session: AsyncSession, *, monitor_id: int, now: datetime) -> None:
    """The monitor's agent locations check it at their next claim, unless checking it now."""
    await session.execute(
        update(LocationCheck)
        .where(
            LocationCheck.monitor_id == monitor_id,
            LocationCheck.next_check_at.is_not(None),
            or_(LocationCheck.lease_owner.is_(None), LocationCheck.lease_expires_at < now),
        )
        .values(next_check_at=now)
    )


async def _place(
    session: AsyncSession,
    found: Sequence[Place],
    monitors: Sequence[Monitor],
    *,
    now: datetime,
    recheck: bool,
) -> int:
    by_id = {p.id: p for p in found}
    ids = [m.id for m in monitors]
    rows = await session.execute(
        select(LocationCheck.monitor_id, LocationCheck.location_id).where(
            LocationCheck.monitor_id.in_(ids)
        )
    )
    have: dict[int, set[int]] = {}
    for monitor_id, location_id in rows:
        have.setdefault(monitor_id, set()).add(location_id)
    added: list[dict[str, Any]] = []
    gone: list[tuple[int, int]] = []
    changed = 0
    for monitor in monitors:
        picked = chosen(
            found, team_id=monitor.team_id, regions=monitor.regions or (), names=monitor.locations
        )
        here = not picked or any(p.is_server for p in picked)
        located = not all(p.is_server for p in picked)
        if (monitor.checked_here, monitor.located) != (here, located):
            changed += 1
            if here and not monitor.checked_here and not monitor.paused:
                monitor.schedule_now(now)
            monitor.checked_here, monitor.located = here, located
        if not located:
            monitor.degraded_since = None
        wanted = {p.id for p in picked} if located else set()
        current = have.get(monitor.id, set())
        gone += [(monitor.id, location_id) for location_id in current - wanted]
        added += [
            {
                "team_id": monitor.team_id,
                "monitor_id": monitor.id,
                "location_id": location_id,
                "next_check_at": None if by_id[location_id].is_server else now,
            }
            for location_id in sorted(wanted - current)
        ]
    for monitor_id, location_id in gone:
        await session.execute(
            delete(LocationCheck).where(
                LocationCheck.monitor_id == monitor_id, LocationCheck.location_id == location_id
            )
        )
    if added:
        await session.execute(insert(LocationCheck), added)
    if recheck:
        await session.execute(
            update(LocationCheck)
            .where(LocationCheck.monitor_id.in_(ids), LocationCheck.next_check_at.is_not(None))
            .values(next_check_at=now, lease_owner=None, lease_expires_at=None)
        )
    await session.flush()
    return changed
