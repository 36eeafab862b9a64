"""Writing an event into the outbox, inside the transaction of the change it reports.

`record` is called by the one place each kind of change happens (`incidents.transitions.apply`
for incidents, the monitors service for monitors); it only inserts a row, so the change's
transaction stays short. Delivery workers turn events into deliveries (dispatch.py).

A worker of the same process hears of an event as soon as its transaction commits
(`when_recorded`), instead of at its next look for work; events written by other processes
are found by that look (`WATCHPOST_DELIVERY_POLL_INTERVAL`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final, Literal

from sqlalchemy import event as sqlalchemy_event
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from watchpost.delivery.models import DeliveryEvent
from watchpost.teams.models import Team

log = logging.getLogger("watchpost.delivery")

TriggerType = Literal["incident_change", "monitor_change", "on_call_change", "status_page_change"]

INCIDENT_EVENTS: Final = ("started", "acknowledged", "resolved", "reopened", "comment")
MONITOR_EVENTS: Final = ("created", "updated", "paused", "unpaused", "deleted")
EVENTS: Final[dict[str, tuple[str, ...]]] = {
    "incident_change": INCIDENT_EVENTS,
    "monitor_change": MONITOR_EVENTS,
    "on_call_change": ("changed",),
    "status_page_change": (
        "report_created",
        "report_updated",
        "report_resolved",
        "maintenance_started",
        "maintenance_ended",
        "subscription_requested",
    ),
}


_RECORDED: Final = "watchpost.outbox.recorded"
"""The session's `info` key set while its transaction holds a recorded event."""
_listeners: set[Callable[[], None]] = set()


def when_recorded(callback: Callable[[], None]) -> Callable[[], None]:
    """Call `callback` after each commit, in this process, of a transaction that recorded an
    event (on the thread of the commit); returns what stops it."""
    _listeners.add(callback)
    return lambda: _listeners.discard(callback)


@sqlalchemy_event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    if session.info.pop(_RECORDED, False):
        for callback in list(_listeners):
            callback()


@sqlalchemy_event.listens_for(Session, "after_rollback")
def _rolled_back(session: Session) -> None:
    session.info.pop(_RECORDED, None)


async def team_name(session: AsyncSession, team_id: int) -> str:
    name: str | None = await session.scalar(select(Team.name).where(Team.id == team_id))
    return name or ""


async def record(
    session: AsyncSession,
    *,
    team_id: int,
    trigger_type: TriggerType,
    event: str,
    data: dict[str, Any] | Callable[[str], dict[str, Any]],
    at: datetime,
    channels: Sequence[str] = (),
    extra: Mapping[str, Any] | None = None,
) -> DeliveryEvent:
    """Add the event `{"event": event, "data": data}` (data: the object as the API shows
    it, with its `type` and `id`; or what makes it from the team's name) to the outbox of the
    caller's transaction; `channels` names who else is told besides webhooks ("email": the
    team's members, "sms", "call"); `extra` adds members beside `data` (a comment event's
    `comment`)."""
    assert event in EVENTS[trigger_type], (trigger_type, event)
    if callable(data):
        data = data(await team_name(session, team_id))
    row = DeliveryEvent(
        team_id=team_id,
        trigger_type=trigger_type,
        event=event,
        subject_type=str(data["type"]),
        subject_id=int(data["id"]),
        payload={"event": event, "data": data, **(extra or {})},
        channels=list(channels),
        created_at=at,
    )
    session.add(row)
    await session.flush()
    session.info[_RECORDED] = True
    return row
