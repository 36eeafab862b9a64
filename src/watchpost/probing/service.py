"""Locations as people manage them: list, read, create, change and delete, with their rules.

- A name is `^[a-z0-9][a-z0-9-]{0,62}$`, unique among all locations; the region one of the
  hosted API's four; `offline_after_s` 30 to 86,400.
- The server's own location (`is_server`) may be renamed and moved to another region, never
  deleted nor made private.
- A team's location (`team_id`) is always private: only that team's monitors name it.
- A location that monitors name (their `locations` list) is not deleted; renaming one
  renames it in those lists.

Every change ends with `placement_changed`, so that the monitors' locations follow.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Final

from sqlalchemy import Select, String, cast, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.errors import Conflict, InvalidRequest, NotFound, Problem
from watchpost.locations import offline
from watchpost.locations.models import DEFAULT_OFFLINE_AFTER_S, Location
from watchpost.monitors.models import Monitor
from watchpost.writing import Writing

if TYPE_CHECKING:  # schemas imports this module
    from watchpost.probing.schemas import LocationCreate, LocationUpdate

LOCATION: Final = "location"
"""The API's type of a location."""
NAME_PATTERN: Final = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
REGIONS: Final = ("us", "eu", "as", "au")
MIN_OFFLINE_AFTER_S: Final = 30
MAX_OFFLINE_AFTER_S: Final = 86_400


async def placement_changed(session: AsyncSession, *, now: datetime) -> None:
    """The monitors' locations follow (monitors/placement.py)."""
    from watchpost.monitors.placement import place_all

    await session.flush()
    await place_all(session, now=now)


def status(location: Location) -> str:
    """online, offline or unknown (an agent location no agent has spoken for yet). The
    server's own location is online: it is the process answering."""
    if location.is_server:
        return "online"
    if location.offline_since is not None:
        return "offline"
    return "unknown" if location.last_seen_at is None else "online"


def visible(team_id: int) -> Select[tuple[Location]]:
    """The locations a team sees: the operator's (team-less) ones and its own."""
    return select(Location).where(or_(Location.team_id.is_(None), Location.team_id == team_id))


async def list_locations(session: AsyncSession) -> Sequence[Location]:
    """Every location, by name (the operator's view)."""
    return (await session.scalars(select(Location).order_by(Location.name))).all()


async def get_by_name(session: AsyncSession, name: str) -> Location:
    """The location of that name; an unknown name is a 404."""
    found = await session.scalar(select(Location).where(Location.name == name))
    if found is None:
        raise NotFound(LOCATION, name)
    return found


async def get_for_team(session: AsyncSession, *, team_id: int, location_id: int) -> Location:
    """A location the team sees (another team's is a 404)."""
    found = await session.scalar(visible(team_id).where(Location.id == location_id))
    if found is None:
        raise NotFound(LOCATION, location_id)
    return found


def _problems(
    *, name: str | None, region: str | None, offline_after_s: int | None
) -> list[Problem]:
    problems: list[Problem] = []
    if name is not None and not NAME_PATTERN.match(name):
        problems.append(
            (
                "name",
                "name must be 1 to 63 lower-case letters, digits and dashes, starting with a "
                "letter or digit",
            )
        )
    if region is not None and region not in REGIONS:
        problems.append(("region", f"region must be one of {', '.join(REGIONS)}"))
    if offline_after_s is not None and not (
        MIN_OFFLINE_AFTER_S <= offline_after_s <= MAX_OFFLINE_AFTER_S
    ):
        problems.append(
            (
                "offline_after",
                f"offline_after must be {MIN_OFFLINE_AFTER_S} to {MAX_OFFLINE_AFTER_S} seconds",
            )
        )
    return problems


async def _name_taken(session: AsyncSession, name: str, *, other_than: int | None) -> bool:
    stmt = select(Location.id).where(Location.name == name)
    if other_than is not None:
        stmt = stmt.where(Location.id != other_than)
    return await session.scalar(stmt) is not None


def _naming(name: str) -> Select[tuple[Monitor]]:
    """The monitors whose `locations` list holds name (names need no escaping: no quote,
    no LIKE wildcard; the list's JSON text holds each name in double quotes)."""
    return select(Monitor).where(cast(Monitor.locations, String).like(f'%"{name}"%'))


async def monitors_naming(session: AsyncSession, name: str) -> int:
    """How many monitors name the location in their `locations`."""
    stmt = select(func.count()).select_from(_naming(name).subquery())
    return int(await session.scalar(stmt) or 0)


async def create_location(
    session: AsyncSession,
    *,
    name: str,
    region: str,
    now: datetime,
    private: bool = False,
    team_id: int | None = None,
    offline_after_s: int = DEFAULT_OFFLINE_AFTER_S,
) -> Location:
    """A new agent location (a team's is private whatever `private` says)."""
    problems = _problems(name=name, region=region, offline_after_s=offline_after_s)
    if not problems and await _name_taken(session, name, other_than=None):
        problems.append(("name", f"name {name!r} is taken by another location"))
    if problems:
        raise InvalidRequest(problems)
    location = Location(
        name=name,
        region=region,
        private=private or team_id is not None,
        team_id=team_id,
        is_server=False,
        offline_after_s=offline_after_s,
        created_at=now,
    )
    session.add(location)
    await session.flush()
    await placement_changed(session, now=now)
    return location


async def update_location(
    session: AsyncSession,
    location: Location,
    *,
    now: datetime,
    name: str | None = None,
    region: str | None = None,
    private: bool | None = None,
    offline_after_s: int | None = None,
) -> Location:
    """Change what is given (None: unchanged)."""
    problems = _problems(name=name, region=region, offline_after_s=offline_after_s)
    if private is False and location.team_id is not None:
        problems.append(("private", "a team's location is always private"))
    if private and location.is_server:
        problems.append(("private", "the server's own location cannot be private"))
    renamed = name if name is not None and name != location.name else None
    if renamed and not problems and await _name_taken(session, renamed, other_than=location.id):
        problems.append(("name", f"name {name!r} is taken by another location"))
    if problems:
        raise InvalidRequest(problems)
    if renamed:
        await _rename_in_monitors(session, location.name, renamed)
        location.name = renamed
    if region is not None:
        location.region = region
    if private is not None:
        location.private = private
    if offline_after_s is not None:
        location.offline_after_s = offline_after_s
    await session.flush()
    await placement_changed(session, now=now)
    return location


async def create_team_location(write: Writing, data: LocationCreate) -> Location:
    """A team's private location from a parsed body (the API's POST and the console's form)."""
    return await create_location(
        write.session,
        name=data.name,
        region=data.region,
        private=True,
        team_id=write.team_id,
        offline_after_s=data.offline_after or DEFAULT_OFFLINE_AFTER_S,
        now=write.now,
    )


async def update_from(write: Writing, location: Location, data: LocationUpdate) -> Location:
    """A parsed PATCH body applied (the API's and the console's)."""
    return await update_location(
        write.session,
        location,
        name=data.name,
        region=data.region,
        offline_after_s=data.offline_after,
        now=write.now,
    )


async def _rename_in_monitors(session: AsyncSession, old: str, new: str) -> None:
    for monitor in (await session.scalars(_naming(old))).all():
        monitor.locations = [new if named == old else named for named in monitor.locations]


async def delete_location(session: AsyncSession, location: Location, *, now: datetime) -> None:
    """Delete the location, its tokens and checks; refused (409) for the server's own and
    for one that monitors name. Its open offline incidents are resolved."""
    if location.is_server:
        raise Conflict(f"location {location.name!r} is the server's own and cannot be deleted")
    named = await monitors_naming(session, location.name)
    if named:
        monitors = "monitor names" if named == 1 else "monitors name"
        raise Conflict(
            f"{named} {monitors} location {location.name!r}; take it out of their locations "
            "before deleting it"
        )
    await offline.resolve_incidents(session, location, now=now, text="The location was deleted")
    await session.delete(location)
    await session.flush()
    await placement_changed(session, now=now)
