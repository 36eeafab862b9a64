"""What status reports say now: a report's state, its aggregate state, and the status open
reports give a page's resources.

A report is open at `now` when it has started (`starts_at` <= now), has not ended (no
`ends_at`, or `ends_at` > now) and some current affected resource is not `resolved`; an open
report sets each such resource's status (the worst, when several name it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any, Final

from sqlalchemy import bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.status_pages.availability import MAINTENANCE, OPERATIONAL, SEVERITY, Summary
from watchpost.status_pages.models import StatusReport

RESOLVED: Final = "resolved"

# What `report_state` answers.
SCHEDULED: Final = "scheduled"
IN_PROGRESS: Final = "in_progress"
COMPLETED: Final = "completed"


def report_state(report: StatusReport, now: datetime) -> str:
    """Where the report stands for a page's reader: `scheduled` before `starts_at`;
    `resolved` (manual) or `completed` (maintenance) once its window has ended or, for a
    manual report, once every current affected resource is resolved; else `in_progress`."""
    if report.ends_at is not None and report.ends_at <= now:
        return COMPLETED if report.report_type == MAINTENANCE else RESOLVED
    if report.report_type != MAINTENANCE and report.resolved:
        return RESOLVED
    if now < report.starts_at:
        return SCHEDULED
    return IN_PROGRESS


def aggregate_state(affected: Iterable[dict[str, Any]]) -> str:
    """The worst current status among affected resources; `operational` when none is
    affected (all resolved)."""
    seen = {entry["status"] for entry in affected}
    return next((status for status in SEVERITY if status in seen), OPERATIONAL)


_OPEN_AFFECTED: Final = select(StatusReport.affected_resources).where(
    StatusReport.status_page_id == bindparam("page_id"),
    StatusReport.resolved.is_(False),
    StatusReport.starts_at <= bindparam("now"),
    or_(StatusReport.ends_at.is_(None), StatusReport.ends_at > bindparam("now")),
)
"""The affected resources of a page's (bound: page_id) reports open at `now`; built once."""


async def open_statuses(session: AsyncSession, *, page_id: int, now: datetime) -> dict[int, str]:
    """Status page resource id → the status open reports give it now (the worst of them)."""
    found: dict[int, list[str]] = {}
    params = {"page_id": page_id, "now": now}
    for affected in (await session.scalars(_OPEN_AFFECTED, params)).all():
        for entry in affected:
            if entry["status"] != RESOLVED:
                found.setdefault(int(entry["status_page_resource_id"]), []).append(entry["status"])
    return {
        rid: aggregate_state({"status": s} for s in statuses) for rid, statuses in found.items()
    }


async def with_reports(
    session: AsyncSession, found: dict[int, Summary], *, page_id: int, now: datetime
) -> dict[int, Summary]:
    """The summaries with each resource under an open report given the report's status."""
    statuses = await open_statuses(session, page_id=page_id, now=now)
    for rid, status in statuses.items():
        if rid in found:
            found[rid] = replace(found[rid], status=status)
    return found
