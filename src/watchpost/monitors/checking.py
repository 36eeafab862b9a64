"""What a check result does to a monitor: its status machine moves, then its incident.

The check engine reads and writes the monitor's row; this module decides what a result
means for it (monitors/status_machine.py holds the rules) and opens, resolves or adds to
the monitor's incident through `incidents.transitions`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents import check_details
from watchpost.incidents.transitions import AUTOMATIC, Change, apply, open_incident_for, start
from watchpost.monitors.models import Monitor
from watchpost.monitors.status_machine import Stored, Transition, record_check, state_of
from watchpost.monitors.status_machine import apply as store
from watchpost.probes.base import ProbeResult
from watchpost.probes.monitors.check import UNSUPPORTED


class Checked(Stored, Protocol):
    """A monitor as the check engine holds it: the machine's columns, when it was last
    checked, and what its incident is named and owned by."""

    last_checked_at: datetime | None

    @property
    def id(self) -> int: ...
    @property
    def team_id(self) -> int: ...
    @property
    def pronounceable_name(self) -> str | None: ...
    @property
    def url(self) -> str: ...


def skip_for_maintenance(monitor: Stored) -> None:
    """A check skipped for maintenance: the monitor shows `maintenance`, its state kept."""
    store(monitor, state_of(monitor), maintenance=True)


def record_result(monitor: Checked, result: ProbeResult, *, at: datetime) -> Transition | None:
    """Apply a finished check to the monitor's columns; the machine's transition, or None
    when the check gave no verdict (this server cannot run it: the status is left alone)."""
    monitor.last_checked_at = at
    if UNSUPPORTED in result.details:
        return None
    return record_check(monitor, ok=result.ok, error=result.error, at=at)


async def _details(
    session: AsyncSession,
    monitor: Checked,
    result: ProbeResult | None,
    locations: list[dict[str, Any]] | None,
) -> Any:
    """What the opening incident keeps of the check (incidents/check_details.py)."""
    row = (
        await session.execute(
            select(Monitor.monitor_type, Monitor.http_method, Monitor.regions).where(
                Monitor.id == monitor.id
            )
        )
    ).one()
    return check_details.taken(
        url=monitor.url,
        monitor_type=row.monitor_type,
        http_method=row.http_method,
        regions=row.regions,
        details=result.details if result is not None else {},
        locations=locations,
    )


async def follow_incident(
    session: AsyncSession,
    *,
    monitor: Checked,
    transition: Transition,
    at: datetime,
    result: ProbeResult | None = None,
    locations: list[dict[str, Any]] | None = None,
) -> None:
    """Open, resolve or add to the monitor's incident as the transition says (`result`:
    the check that decided it, whose facts an opening incident keeps; `locations`: for a
    monitor checked from several, how each location found it)."""
    current = None
    if transition.open_incident or transition.resolve_incident or transition.timeline:
        current = await open_incident_for(session, monitor_id=monitor.id)
    if transition.open_incident and current is None:
        await start(
            session,
            team_id=monitor.team_id,
            name=monitor.pronounceable_name or monitor.url,
            cause=transition.open_incident,
            at=at,
            by=AUTOMATIC,
            monitor_id=monitor.id,
            check_details=await _details(session, monitor, result, locations),
        )
    elif transition.resolve_incident and current is not None:
        await apply(session, current, Change.RESOLVED, at=at, by=AUTOMATIC, text=transition.event)
    elif transition.timeline and transition.event and current is not None:
        await apply(session, current, Change(transition.timeline), at=at, text=transition.event)
