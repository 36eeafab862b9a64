"""What a check result does to a collector target: its status, then its incident.

The check engine reads and writes the target's row; this module decides what a result means
for the target, opens or resolves its incident through `incidents.transitions`, and
recomputes the collector from its targets (`refresh_collector`, also run after edits and
deletes).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, exists, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors.models import Collector, CollectorTarget
from watchpost.incidents.transitions import AUTOMATIC, Change, apply, open_incident_for, start
from watchpost.probes.base import ProbeResult

RECOVERED_TEXT = "The target is up again."


def record_result(target: CollectorTarget, result: ProbeResult, *, at: datetime) -> None:
    """`up` after a success (its last ping, no error, no failures in a row), `down` after a
    failure (one more failure in a row, the error kept)."""
    if result.ok:
        target.status = "up"
        target.last_ping_at = at
        target.consecutive_failure_count = 0
        target.last_error = None
    else:
        target.status = "down"
        target.consecutive_failure_count += 1
        target.last_error = result.error or "check failed"


async def follow_incident(
    session: AsyncSession, target: CollectorTarget, *, was: str, at: datetime
) -> None:
    """A target that goes down opens an incident; its next success resolves it (an incident
    a person reported stays for a person to resolve)."""
    if target.status == was or target.status not in ("up", "down"):
        return
    incident = await open_incident_for(session, collector_target_id=target.id)
    if target.status == "down" and incident is None:
        where = f"{target.host}:{target.port}" if target.port else target.host
        await start(
            session,
            team_id=target.team_id,
            name=f"{target.kind} target {where}",
            cause=target.last_error or "check failed",
            at=at,
            collector_target_id=target.id,
        )
    elif target.status == "up" and incident is not None and not incident.manual:
        await apply(session, incident, Change.RESOLVED, at=at, by=AUTOMATIC, text=RECOVERED_TEXT)


async def refresh_collector(session: AsyncSession, collector_id: int) -> None:
    """A collector is down if an enabled target is down, up if one is up, else pending;
    pinged_at is its targets' latest successful check. Run after any change to its targets
    (checks, edits, deletes), in the same transaction."""

    def any_target(status: str) -> Any:
        return exists().where(
            and_(
                CollectorTarget.collector_id == collector_id,
                CollectorTarget.enabled.is_(True),
                CollectorTarget.status == status,
            )
        )

    latest = (
        select(func.max(CollectorTarget.last_ping_at))
        .where(CollectorTarget.collector_id == collector_id)
        .scalar_subquery()
    )
    await session.execute(
        update(Collector)
        .where(Collector.id == collector_id)
        .values(
            status=case((any_target("down"), "down"), (any_target("up"), "up"), else_="pending"),
            pinged_at=latest,
        )
        .execution_options(synchronize_session=False)
    )
