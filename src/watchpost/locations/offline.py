"""Agent locations that stop reporting: marked offline, their teams told, and back again.

An agent location whose agents have not spoken for `offline_after_s` is offline
(`offline_since`): its checks are not counted, so a dead agent makes no incident of a
monitor. Its admins are told through the usual alerting instead: one incident in each team
that has monitors checked there (and in the team owning the location), resolved when an
agent speaks again. A location no agent has spoken for yet is `unknown`, never offline.
The server's own location is never offline.

The incidents are found again by their metadata (`probe_location_id`, the location's id):
they have no object of their own, and a location may be renamed while one is open.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents.models import Incident
from watchpost.incidents.transitions import AUTOMATIC, Change, apply, start
from watchpost.locations.models import Location, LocationCheck

log = logging.getLogger(__name__)

INCIDENT_KEY: Final = "probe_location_id"
"""The metadata key that ties an offline incident to its location."""
SEEN_PRECISION: Final = timedelta(seconds=5)
"""`last_seen_at` of an online location is written at most this often."""
SWEEP_EVERY: Final = timedelta(seconds=10)
"""How often the engine looks for silent locations (sweeps.py)."""


def incident_name(location: Location) -> str:
    return f"Probe location {location.name} is offline"


def _cause(location: Location) -> str:
    return (
        f"No agent of probe location {location.name} ({location.region}) has reported for "
        f"{location.offline_after_s} s. Its checks are not counted until it reports again; "
        "the monitors' verdicts come from their other locations."
    )


async def mark_offline(session: AsyncSession, *, now: datetime) -> list[Location]:
    """Mark the agent locations silent for longer than their `offline_after_s` offline, and
    open their incidents; the locations marked."""
    candidates = await session.scalars(
        select(Location).where(
            Location.is_server.is_(False),
            Location.offline_since.is_(None),
            Location.last_seen_at.is_not(None),
        )
    )
    marked = [
        location
        for location in candidates.all()
        if location.last_seen_at is not None
        and now - location.last_seen_at >= timedelta(seconds=location.offline_after_s)
    ]
    for location in marked:
        location.offline_since = now
        log.warning(
            "probe location %s is offline: silent since %s", location.name, location.last_seen_at
        )
        for team_id in await _teams(session, location):
            await start(
                session,
                team_id=team_id,
                name=incident_name(location),
                cause=_cause(location),
                at=now,
                by=AUTOMATIC,
                metadata={INCIDENT_KEY: [str(location.id)]},
            )
    await session.flush()
    return marked


async def sweep(session: AsyncSession, *, now: datetime) -> int:
    """The engine's sweep (engine/sweeps.py): how many locations went offline."""
    return len(await mark_offline(session, now=now))


async def seen(
    session: AsyncSession, location: Location, *, now: datetime, agent: str | None
) -> None:
    """An agent of the location spoke at `now` (`agent`: what it says it is, host name and
    version). An offline location is back: its incidents are resolved."""
    agent = agent[:255] if agent else None
    was_offline = location.offline_since is not None
    recent = location.last_seen_at is not None and now - location.last_seen_at < SEEN_PRECISION
    if not was_offline and recent and agent in (None, location.last_agent):
        return
    location.last_seen_at = now
    if agent:
        location.last_agent = agent
    if was_offline:
        location.offline_since = None
        log.info("probe location %s is back online", location.name)
        await resolve_incidents(session, location, now=now, text="The location reports again")
    await session.flush()


async def _teams(session: AsyncSession, location: Location) -> list[int]:
    """The teams told of the location: those with monitors checked there, and its owner."""
    rows = await session.scalars(
        select(LocationCheck.team_id).where(LocationCheck.location_id == location.id).distinct()
    )
    teams = set(rows.all())
    if location.team_id is not None:
        teams.add(location.team_id)
    return sorted(teams)


async def open_incidents(session: AsyncSession, location: Location) -> Sequence[Incident]:
    """The location's open offline incidents (one a team): automatic incidents of no object,
    few at any time, picked by their metadata."""
    found = await session.scalars(
        select(Incident)
        .where(
            Incident.resolved_at.is_(None),
            Incident.manual.is_(False),
            Incident.monitor_id.is_(None),
            Incident.heartbeat_id.is_(None),
            Incident.collector_target_id.is_(None),
            Incident.incoming_webhook_id.is_(None),
        )
        .order_by(Incident.id)
    )
    wanted = [str(location.id)]
    return [incident for incident in found.all() if incident.metadata_.get(INCIDENT_KEY) == wanted]


async def resolve_incidents(
    session: AsyncSession, location: Location, *, now: datetime, text: str
) -> int:
    """Resolve the location's open offline incidents; how many."""
    incidents = await open_incidents(session, location)
    for incident in incidents:
        await apply(session, incident, Change.RESOLVED, at=now, by=AUTOMATIC, text=text)
    return len(incidents)
