"""Every change of an incident goes through `apply`: its columns and its timeline entry.

Whoever causes it (a check result, a heartbeat ping or sweep, a person through the API,
the deletion of the object it is about), a change is one `Change` applied to one incident
inside the caller's transaction. `apply` is the only code that writes an incident's state
(`started_at`, `acknowledged_*`, `resolved_*`, `updated_at`) or adds a timeline entry, so
whatever must follow every change of an incident belongs in it, once: a server log line and,
for the changes people are told of, an event in the delivery outbox (same transaction).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import added
from watchpost.delivery import outbox
from watchpost.errors import Conflict
from watchpost.incidents.models import Incident, IncidentEvent, referenced
from watchpost.incidents.rendering import SUBJECTS, incident_payload
from watchpost.masking import mask_urls
from watchpost.metadata import incidents as incident_metadata

log = logging.getLogger("watchpost.incidents")

AUTOMATIC: Final = "Watchpost"
"""Who acknowledged or resolved, when nobody did by hand."""


class Change(enum.StrEnum):
    """What happens to an incident; the value is the kind of its timeline entry."""

    STARTED = "started"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"
    REOPENED = "reopened"
    """A resolved incident is open again (by hand): nobody is on it yet."""
    COMMENT = "comment"
    """Someone (or a policy's instructions step) wrote on the incident."""
    CHECK_FAILED = "check_failed"
    """A note on an open incident: a check failed again while recovery was being validated."""
    CHECK_RECOVERED = "check_recovered"
    """A note on an open incident: a check succeeded; recovery is being validated."""


def _start(incident: Incident, at: datetime, _by: str | None) -> None:
    incident.started_at = incident.created_at = incident.updated_at = at


def _acknowledge(incident: Incident, at: datetime, by: str | None) -> None:
    if incident.resolved_at is not None:
        raise Conflict(f"Incident {incident.id} is already resolved")
    if incident.acknowledged_at is not None:
        raise Conflict(f"Incident {incident.id} is already acknowledged")
    incident.acknowledged_at, incident.acknowledged_by, incident.updated_at = at, by, at


def _resolve(incident: Incident, at: datetime, by: str | None) -> None:
    if incident.resolved_at is not None:
        raise Conflict(f"Incident {incident.id} is already resolved")
    incident.resolved_at, incident.resolved_by, incident.updated_at = at, by, at


def _reopen(incident: Incident, at: datetime, _by: str | None) -> None:
    if incident.resolved_at is None:
        raise Conflict(f"Incident {incident.id} is not resolved")
    incident.resolved_at = incident.resolved_by = None
    incident.acknowledged_at = incident.acknowledged_by = None
    incident.updated_at = at


def _note(_incident: Incident, _at: datetime, _by: str | None) -> None:
    """A timeline entry only: the incident's own columns stay as they are."""


_EFFECTS: Final[dict[Change, Callable[[Incident, datetime, str | None], None]]] = {
    Change.STARTED: _start,
    Change.ACKNOWLEDGED: _acknowledge,
    Change.RESOLVED: _resolve,
    Change.REOPENED: _reopen,
    Change.COMMENT: _note,
    Change.CHECK_FAILED: _note,
    Change.CHECK_RECOVERED: _note,
}
_DEFAULT_TEXTS: Final = {
    Change.ACKNOWLEDGED: "Acknowledged by {by}",
    Change.RESOLVED: "Resolved by {by}",
    Change.REOPENED: "Reopened by {by}",
}
"""The timeline text of a change made without one."""
_ANNOUNCED: Final = {
    Change.STARTED: "started",
    Change.ACKNOWLEDGED: "acknowledged",
    Change.RESOLVED: "resolved",
    Change.REOPENED: "reopened",
    Change.COMMENT: "comment",
}
"""The changes receivers are told of, and the event each is (webhooks' `event`)."""


def _about(incident: Incident) -> str:
    for column, kind in SUBJECTS:
        if getattr(incident, column) is not None:
            return f" ({kind} {getattr(incident, column)})"
    return ""


_TOLD: Final = frozenset({"started", "resolved", "reopened"})
"""The events people are told of by e-mail, SMS and call, when the incident says so."""
_PERSONAL: Final = ("email", "sms", "call")
"""The incident's flags that name a way to tell people, in the order they are tried."""


ALERT_FIELDS: Final = frozenset(
    {"call", "sms", "email", "push", "critical_alert", "team_wait", "policy_id", "description"}
)
"""An incident's own alert settings (the hosted API's incident fields)."""
_COPIED: Final = ("call", "sms", "email", "push", "critical_alert", "team_wait", "policy_id")
"""What an incident about an object takes from the object's NotificationColumns."""


async def _object_alerts(session: AsyncSession, incident: Incident) -> dict[str, Any]:
    """The notification settings of the object the incident is about, if it has them."""
    for column, _ in SUBJECTS:
        subject_id = getattr(incident, column)
        table = referenced(column)
        if subject_id is not None and all(name in table.c for name in _COPIED):
            row = (
                await session.execute(
                    select(*(table.c[name] for name in _COPIED)).where(table.c.id == subject_id)
                )
            ).first()
            return {} if row is None else dict(zip(_COPIED, row, strict=True))
    return {}


async def _announce(
    session: AsyncSession,
    incident: Incident,
    event: str,
    at: datetime,
    extra: Mapping[str, Any] | None,
) -> None:
    # Masked before it is cut: a URL cut inside its user-info would keep its password.
    name = mask_urls(incident.name)[:200]
    log.info("incident %s %s%s: %s", incident.id, event, _about(incident), name)
    await outbox.record(
        session,
        team_id=incident.team_id,
        trigger_type="incident_change",
        event=event,
        data=partial(incident_payload, incident),
        at=at,
        channels=[way for way in _PERSONAL if getattr(incident, way)] if event in _TOLD else [],
        extra=extra,
    )


async def apply(
    session: AsyncSession,
    incident: Incident,
    change: Change,
    *,
    at: datetime,
    by: str | None = None,
    text: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> IncidentEvent:
    """Apply `change` to `incident` at `at` and add its timeline entry (`text`, else the
    change's default wording); 409 (Conflict) when the incident's state does not allow it.
    STARTED takes a new, unsaved incident. `extra` goes beside `data` in the event's
    payload (a comment event's `comment`)."""
    if text is None:
        text = _DEFAULT_TEXTS[change].format(by=by)
    _EFFECTS[change](incident, at, by)
    if change is Change.STARTED:
        await added(session, incident)
    event = IncidentEvent(incident_id=incident.id, at=at, kind=change.value, text=text, by=by)
    await added(session, event)
    announced = _ANNOUNCED.get(change)
    if announced is not None:
        await _announce(session, incident, announced, at, extra)
    return event


async def start(
    session: AsyncSession,
    *,
    team_id: int,
    name: str,
    cause: str,
    at: datetime,
    by: str | None = None,
    manual: bool = False,
    metadata: dict[str, Any] | None = None,
    monitor_id: int | None = None,
    heartbeat_id: int | None = None,
    collector_target_id: int | None = None,
    incoming_webhook_id: int | None = None,
    alerts: dict[str, Any] | None = None,
    check_details: dict[str, Any] | None = None,
) -> Incident:
    """A new open incident, about the object named (if any), with its `started` entry.
    Its alert settings (ALERT_FIELDS) are `alerts` where given, else the object's; its
    metadata is `metadata` and the object's metadata records (metadata/incidents.py)."""
    metadata, records = await incident_metadata.opening(
        session,
        team_id=team_id,
        monitor_id=monitor_id,
        heartbeat_id=heartbeat_id,
        incoming_webhook_id=incoming_webhook_id,
        given=metadata,
    )
    incident = Incident(
        team_id=team_id,
        name=name,
        cause=cause,
        manual=manual,
        metadata_=metadata,
        monitor_id=monitor_id,
        heartbeat_id=heartbeat_id,
        collector_target_id=collector_target_id,
        incoming_webhook_id=incoming_webhook_id,
        check_details=check_details,
    )
    given = alerts or {}
    unknown = set(given) - ALERT_FIELDS
    assert not unknown, unknown
    for name, value in {**await _object_alerts(session, incident), **given}.items():
        setattr(incident, name, value)
    await apply(session, incident, Change.STARTED, at=at, text=cause, by=by)
    await incident_metadata.opened(session, incident, records, at)
    return incident


async def open_incident_for(
    session: AsyncSession,
    *,
    monitor_id: int | None = None,
    heartbeat_id: int | None = None,
    collector_target_id: int | None = None,
    incoming_webhook_id: int | None = None,
) -> Incident | None:
    """The open incident of one object, if any (there is at most one)."""
    stmt = select(Incident).where(Incident.resolved_at.is_(None))
    if monitor_id is not None:
        stmt = stmt.where(Incident.monitor_id == monitor_id)
    elif heartbeat_id is not None:
        stmt = stmt.where(Incident.heartbeat_id == heartbeat_id)
    elif collector_target_id is not None:
        stmt = stmt.where(Incident.collector_target_id == collector_target_id)
    elif incoming_webhook_id is not None:
        stmt = stmt.where(Incident.incoming_webhook_id == incoming_webhook_id)
    else:
        raise ValueError("name the object whose incident is wanted")
    found: Incident | None = await session.scalar(stmt.order_by(Incident.id.desc()).limit(1))
    return found
