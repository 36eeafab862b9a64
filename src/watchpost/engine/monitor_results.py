"""What a monitor check result does to the monitor: status, incidents. The one seam to the
status machine (monitors/status_machine.py, built on the `status-machine` branch).

STAND-IN until that branch is merged: `record_check` below flips up/down on every result
(no confirmation or recovery period) and `maintenance_until` knows no windows. At merge,
replace the three stand-ins with:
    from watchpost.monitors.status_machine import apply, record_check, state_of
    from watchpost.policy import maintenance_end
    maintenance_until(monitor, at) = maintenance_end(monitor, at)
    enter_maintenance(monitor) = apply(monitor, state_of(monitor), maintenance=True)
`apply_result` is written against the real Transition's fields and stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents.service import AUTOMATIC, add_event, open_incident, open_incident_for
from watchpost.incidents.service import resolve as resolve_incident
from watchpost.monitors.models import Monitor

DEFAULT_CAUSE = "Check failed"


@dataclass(frozen=True)
class Transition:
    """Stand-in of status_machine.Transition: the decisions the engine acts on."""

    open_incident: str | None = None
    resolve_incident: bool = False
    event: str | None = None
    timeline: str | None = None
    recheck_at: datetime | None = None


def record_check(monitor: Monitor, *, ok: bool, error: str | None, at: datetime) -> Transition:
    """Stand-in of status_machine.record_check: up on success, down (incident) on failure."""
    if monitor.paused:
        return Transition()
    was = monitor.status
    if ok:
        monitor.status = "up"
        return Transition(resolve_incident=was in ("down", "validating"))
    monitor.status = "down"
    return Transition(open_incident=None if was == "down" else (error or DEFAULT_CAUSE))


def maintenance_until(monitor: Monitor, at: datetime) -> datetime | None:
    """Stand-in of policy.maintenance_end: when the window `at` lies in ends; None outside."""
    return None


def enter_maintenance(monitor: Monitor) -> None:
    """A check skipped for maintenance: the monitor shows `maintenance`."""
    if not monitor.paused:
        monitor.status = "maintenance"


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
