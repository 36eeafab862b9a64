"""What a monitor check result does to the monitor: status machine, then incidents.

The status machine (monitors/status_machine.py) decides; this module acts on its decisions
through the incidents service, and reads maintenance windows from policy.py.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents.service import AUTOMATIC, add_event, open_incident, open_incident_for
from watchpost.incidents.service import resolve as resolve_incident
from watchpost.monitors.models import Monitor
from watchpost.monitors.status_machine import apply, record_check, state_of
from watchpost.policy import maintenance_end


def maintenance_until(monitor: Monitor, at: datetime) -> datetime | None:
    """When the maintenance window `at` lies in ends; None outside one."""
    return maintenance_end(monitor, at)


def enter_maintenance(monitor: Monitor) -> None:
    """A check skipped for maintenance: the monitor shows `maintenance`, its state kept."""
    apply(monitor, state_of(monitor), maintenance=True)


def incident_name(monitor: Monitor) -> str:
    return monitor.pronounceable_name or monitor.url


async def apply_result(
    session: AsyncSession, *, monitor: Monitor, ok: bool, error: str | None, at: datetime
) -> datetime | None:
    """Run the status machine on one result and open or resolve the incident it decides.

    Returns the time by which the machine wants the next check (confirmation, recovery).
    """
    transition = record_check(monitor, ok=ok, error=error, at=at)
    current = None
    if transition.open_incident or transition.resolve_incident or transition.timeline:
        current = await open_incident_for(session, monitor_id=monitor.id)
    if transition.open_incident and current is None:
        await open_incident(
            session,
            team_id=monitor.team_id,
            name=incident_name(monitor),
            cause=transition.open_incident,
            now=at,
            monitor_id=monitor.id,
            started_by=AUTOMATIC,
        )
    elif transition.resolve_incident and current is not None:
        await resolve_incident(
            session, incident=current, now=at, by=AUTOMATIC, text=transition.event
        )
    elif transition.timeline and transition.event and current is not None:
        await add_event(
            session, incident=current, kind=transition.timeline, text=transition.event, now=at
        )
    return transition.recheck_at
