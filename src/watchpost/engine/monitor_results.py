"""What a monitor check result does to the monitor: status machine, then incidents.

The status machine (monitors/status_machine.py) decides; this module acts on its decisions
through the incidents service, and reads maintenance windows from policy.py.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents.service import AUTOMATIC, add_event, open_incident, open_incident_for
from watchpost.incidents.service import resolve as resolve_incident
from watchpost.monitors.status_machine import Stored, Transition, apply, record_check, state_of
from watchpost.policy import MaintenanceWindow, maintenance_end


class Subject(Stored, Protocol):
    """A monitor as the engine's writer sees it: the machine's columns and what an incident
    is named and owned by."""

    @property
    def id(self) -> int: ...
    @property
    def team_id(self) -> int: ...
    @property
    def pronounceable_name(self) -> str | None: ...
    @property
    def url(self) -> str: ...


def maintenance_until(monitor: MaintenanceWindow, at: datetime) -> datetime | None:
    """When the maintenance window `at` lies in ends; None outside one."""
    return maintenance_end(monitor, at)


def enter_maintenance(monitor: Stored) -> None:
    """A check skipped for maintenance: the monitor shows `maintenance`, its state kept."""
    apply(monitor, state_of(monitor), maintenance=True)


def incident_name(monitor: Subject) -> str:
    return monitor.pronounceable_name or monitor.url


def decide(monitor: Stored, *, ok: bool, error: str | None, at: datetime) -> Transition:
    """Run the status machine on one result (the monitor's columns change, nothing else);
    `act` then opens or resolves the incident it decided."""
    return record_check(monitor, ok=ok, error=error, at=at)


async def act(
    session: AsyncSession, *, monitor: Subject, transition: Transition, at: datetime
) -> None:
    """Open, resolve or add to the monitor's incident as the transition says."""
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
