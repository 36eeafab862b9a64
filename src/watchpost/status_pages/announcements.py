"""What a page's subscribers are told, written into the outbox with the change.

A new report (its first update), a new status update and a manual report's resolution are
recorded in the transaction of the API request that makes them, when the update says
`notify_subscribers`. A maintenance's start and end happen by time: a maintenance report
created with `notify_subscribers` keeps a `ReportAnnouncement` row due at its start (or, once
started, its end), and every delivery pass records what is due (`due`, installed into the
delivery system by subscriptions/receiver.py). The events go to the `subscriber` receiver
(the page's confirmed subscribers); nothing here knows who they are.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy import bindparam, exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.db.base import UTCDateTime
from watchpost.delivery import outbox
from watchpost.status_pages import report_states
from watchpost.status_pages.availability import MAINTENANCE
from watchpost.status_pages.models import (
    ReportAnnouncement,
    StatusPage,
    StatusPageResource,
    StatusReport,
    StatusUpdate,
)

CHANNEL: Final = "subscriber"
"""The delivery receiver told of these events (subscriptions/receiver.py)."""
START: Final = "start"
END: Final = "end"

WAITING: Final = exists().where(
    ReportAnnouncement.next_at <= bindparam("due_now", type_=UTCDateTime())
)
"""Whether an announcement is due (the delivery pass's idle check)."""


async def _resources(session: AsyncSession, page_id: int, ids: list[int]) -> dict[int, str]:
    """Resource id → the name subscribers read."""
    if not ids:
        return {}
    rows = await session.execute(
        select(
            StatusPageResource.id,
            StatusPageResource.public_name,
            StatusPageResource.resource_type,
            StatusPageResource.resource_id,
        ).where(StatusPageResource.status_page_id == page_id, StatusPageResource.id.in_(ids))
    )
    return {
        rid: name or (f"{kind} {item}" if item is not None else kind)
        for rid, name, kind, item in rows
    }


async def _record(
    session: AsyncSession,
    event: str,
    *,
    page: StatusPage,
    report: StatusReport,
    update: StatusUpdate | None,
    now: datetime,
) -> None:
    """The event, with what a mail or a webhook says of it (as it is now)."""
    ids = [int(e["status_page_resource_id"]) for e in report.affected_resources]
    names = await _resources(session, page.id, ids)
    affected = [
        {
            "status_page_resource_id": str(rid),
            "name": names[rid],
            "status": entry["status"],
        }
        for rid, entry in zip(ids, report.affected_resources, strict=True)
        if rid in names
    ]
    data = {
        "id": str(report.id),
        "type": "status_report",
        "attributes": {
            "title": report.title,
            "report_type": report.report_type,
            "state": report_states.report_state(report, now),
            "starts_at": isoformat_ms(report.starts_at),
            "ends_at": None if report.ends_at is None else isoformat_ms(report.ends_at),
            "aggregate_state": report_states.aggregate_state(affected),
            "affected_resources": affected,
        },
    }
    told_update = None
    if update is not None:
        told_update = {
            "id": str(update.id),
            "type": "status_update",
            "attributes": {
                "message": update.message,
                "published_at": isoformat_ms(update.published_at),
            },
        }
    status_page = {
        "id": str(page.id),
        "company_name": page.company_name,
        "subdomain": page.subdomain,
    }
    await outbox.record(
        session,
        team_id=page.team_id,
        trigger_type="status_page_change",
        event=event,
        data=data,
        at=now,
        channels=[CHANNEL],
        extra={"status_update": told_update, "status_page": status_page},
    )


async def report_created(
    session: AsyncSession,
    *,
    page: StatusPage,
    report: StatusReport,
    update: StatusUpdate,
    now: datetime,
) -> None:
    """A new report (and its first update): told when the update says notify_subscribers; a
    maintenance's start and end are then told when they come."""
    if not update.notify_subscribers:
        return
    await _record(session, "report_created", page=page, report=report, update=update, now=now)
    if report.report_type == MAINTENANCE and report.ends_at is not None:
        phase, at = (START, report.starts_at) if report.starts_at > now else (END, report.ends_at)
        session.add(
            ReportAnnouncement(
                team_id=report.team_id, status_report_id=report.id, phase=phase, next_at=at
            )
        )
        await session.flush()


async def update_published(
    session: AsyncSession,
    *,
    page: StatusPage,
    report: StatusReport,
    update: StatusUpdate,
    was_resolved: bool,
    now: datetime,
) -> None:
    """A new status update: told when it says notify_subscribers, as the report's
    resolution when it resolves a manual report."""
    if not update.notify_subscribers:
        return
    resolves = report.report_type != MAINTENANCE and report.resolved and not was_resolved
    event = "report_resolved" if resolves else "report_updated"
    await _record(session, event, page=page, report=report, update=update, now=now)


async def report_changed(session: AsyncSession, *, report: StatusReport) -> None:
    """A report's window changed: its announcement still due moves with it."""
    row = await session.get(ReportAnnouncement, report.id)
    if row is None:
        return
    if row.phase == START:
        row.next_at = report.starts_at
    elif report.ends_at is not None:
        row.next_at = report.ends_at
    else:
        await session.delete(row)
    await session.flush()


async def due(session: AsyncSession, now: datetime, limit: int) -> int:
    """Record the maintenance starts and ends due at `now` (oldest first, up to `limit`);
    call inside a write transaction."""
    rows = list(
        (
            await session.scalars(
                select(ReportAnnouncement)
                .where(ReportAnnouncement.next_at <= now)
                .order_by(ReportAnnouncement.next_at)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
        ).all()
    )
    for row in rows:
        report = await session.get(StatusReport, row.status_report_id)
        page = None if report is None else await session.get(StatusPage, report.status_page_id)
        if report is None or page is None:
            continue
        event = "maintenance_started" if row.phase == START else "maintenance_ended"
        await _record(session, event, page=page, report=report, update=None, now=now)
        if row.phase == START and report.ends_at is not None:
            row.phase, row.next_at = END, report.ends_at
        else:
            await session.delete(row)
    await session.flush()
    return len(rows)


def payload_resources(payload: dict[str, Any]) -> set[int]:
    """The resource ids an event's report names (what per-resource subscribers match)."""
    affected = payload["data"]["attributes"]["affected_resources"]
    return {int(entry["status_page_resource_id"]) for entry in affected}
