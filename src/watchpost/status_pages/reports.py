"""Status reports of a page and their status updates: create, read, change, delete.

A report's current affected resources are its newest update's (latest `published_at`, then
highest id), copied onto the report with its `resolved` flag on every write (`_sync`), so a
page's open reports are one indexed read (report_states.py says what they do to the page's
resources).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from sqlalchemy import bindparam, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost import times
from watchpost.db.queries import added, check_held, team_object, team_rows
from watchpost.errors import InvalidRequest, Problem
from watchpost.listing import Page, PageRequest, paginate
from watchpost.problems import null_problems, sent_values
from watchpost.status_pages.availability import MAINTENANCE
from watchpost.status_pages.limits import check_room
from watchpost.status_pages.models import (
    StatusPage,
    StatusPageResource,
    StatusReport,
    StatusUpdate,
    page_row,
)
from watchpost.status_pages.report_schemas import (
    REPORT_NOT_NULL,
    UPDATE_NOT_NULL,
    AffectedResource,
    ReportCreate,
    ReportUpdate,
    UpdateChange,
    UpdateCreate,
)
from watchpost.status_pages.report_states import RESOLVED
from watchpost.validation import parse_id

REPORT: Final = "status_report"
UPDATE: Final = "status_update"
MAX_REPORTS: Final = 10_000
"""Reports one status page holds (422 past it)."""
MAX_UPDATES: Final = 100
"""Status updates one report holds (422 past it): a report's document carries them all."""


def reports_of(*, team_id: int, page_id: int) -> Any:
    return team_rows(StatusReport, team_id=team_id, status_page_id=page_id)


async def list_reports(
    session: AsyncSession, *, team_id: int, page_id: int, paging: PageRequest
) -> Page[StatusReport]:
    return await paginate(
        session, reports_of(team_id=team_id, page_id=page_id), paging, order_by=StatusReport.id
    )


async def get_report(
    session: AsyncSession, *, team_id: int, page_id: int, report_id: int
) -> StatusReport:
    return await team_object(
        session, StatusReport, REPORT, team_id=team_id, object_id=report_id, status_page_id=page_id
    )


_UPDATES_OF: Final = (
    select(StatusUpdate)
    .where(StatusUpdate.status_report_id.in_(bindparam("ids", expanding=True)))
    .order_by(StatusUpdate.published_at, StatusUpdate.id)
)
"""The updates of reports (bound: ids); built once."""


async def updates_of(session: AsyncSession, report_ids: Sequence[int]) -> list[StatusUpdate]:
    """The reports' updates, oldest first (published_at, then id)."""
    if not report_ids:
        return []
    return list((await session.scalars(_UPDATES_OF, {"ids": list(report_ids)})).all())


async def list_updates(
    session: AsyncSession, *, report: StatusReport, paging: PageRequest
) -> Page[StatusUpdate]:
    stmt = team_rows(StatusUpdate, team_id=report.team_id, status_report_id=report.id)
    return await paginate(session, stmt, paging, order_by=StatusUpdate.id)


async def get_update(
    session: AsyncSession, *, report: StatusReport, update_id: int
) -> StatusUpdate:
    return await team_object(
        session,
        StatusUpdate,
        UPDATE,
        team_id=report.team_id,
        object_id=update_id,
        status_report_id=report.id,
    )


async def live_resource_ids(session: AsyncSession, page_id: int) -> set[int]:
    """The ids of the page's resources (affected resources naming others are not shown)."""
    stmt = select(StatusPageResource.id).where(StatusPageResource.status_page_id == page_id)
    return set((await session.scalars(stmt)).all())


# ------------------------------------------------------------------------- checking


def _time(name: str, raw: str | None, problems: list[Problem]) -> datetime | None:
    """An ISO 8601 time as UTC (one without an offset is taken as UTC), within the years
    1970 to 2200."""
    if raw is None:
        return None
    try:
        return times.read_time(raw)
    except times.OutOfRange as error:
        problems.append((name, f"{name} {error}"))
    except times.Unreadable:
        problems.append((name, f"{name} must be an ISO 8601 time (2026-01-31T09:00:00Z)"))
    return None


async def _affected(
    session: AsyncSession,
    page: StatusPage,
    report_type: str,
    entries: Sequence[AffectedResource] | None,
    problems: list[Problem],
) -> list[dict[str, Any]]:
    """The entries as stored, or problems naming resources not of the page, repeated ones
    and statuses the report's type does not take."""
    if entries is None:
        return []
    name = "affected_resources"
    out: list[dict[str, Any]] = []
    ids: list[int] = []
    for index, entry in enumerate(entries):
        raw = entry.status_page_resource_id
        rid = raw if isinstance(raw, int) else parse_id(raw.strip())
        if rid is None:
            problems.append((name, f"status_page_resource_id {raw!r} (item {index}) is no id"))
            continue
        if rid in ids:
            problems.append((name, f"status_page_resource_id {rid} is named twice"))
        if (report_type == MAINTENANCE) != (entry.status == MAINTENANCE):
            allowed = (
                "maintenance" if report_type == MAINTENANCE else "resolved, degraded, downtime"
            )
            problems.append(
                (
                    name,
                    f"status {entry.status!r} (item {index}) is not one of {allowed} for a "
                    f"{report_type} report",
                )
            )
        ids.append(rid)
        out.append({"status_page_resource_id": rid, "status": entry.status})
    if ids:
        stmt = select(StatusPageResource.id).where(
            StatusPageResource.status_page_id == page.id, StatusPageResource.id.in_(ids)
        )
        known = set((await session.scalars(stmt)).all())
        problems.extend(
            (name, f"status_page_resource_id {rid} names no resource of this status page")
            for rid in dict.fromkeys(ids)
            if rid not in known
        )
    return out


def _window_problems(
    report_type: str, starts: datetime, ends: datetime | None, problems: list[Problem]
) -> None:
    if report_type == MAINTENANCE and ends is None:
        problems.append(("ends_at", "ends_at is required for a maintenance report"))
    if ends is not None and ends <= starts:
        problems.append(("ends_at", "ends_at must be after starts_at"))


def _raise(problems: list[Problem]) -> None:
    if problems:
        raise InvalidRequest(problems)


async def _newest_update(session: AsyncSession, report: StatusReport) -> StatusUpdate | None:
    """The report's latest published update (the last made, among those published at once)."""
    newest: StatusUpdate | None = await session.scalar(
        select(StatusUpdate)
        .where(StatusUpdate.status_report_id == report.id)
        .order_by(StatusUpdate.published_at.desc(), StatusUpdate.id.desc())
        .limit(1)
    )
    return newest


async def _sync(session: AsyncSession, report: StatusReport, now: datetime) -> None:
    """Copy the newest update's affected resources onto the report."""
    await session.flush()
    newest = await _newest_update(session, report)
    if newest is not None:
        report.affected_resources = list(newest.affected_resources)
    report.resolved = all(e["status"] == RESOLVED for e in report.affected_resources)
    report.updated_at = now
    await session.flush()


# ------------------------------------------------------------------------- writing


async def create_report(
    session: AsyncSession, *, page: StatusPage, data: ReportCreate, now: datetime
) -> StatusReport:
    """A report and its first status update (the page is locked by the caller)."""
    await check_room(session, page=page, what="status reports", limit=MAX_REPORTS)
    problems: list[Problem] = []
    starts = _time("starts_at", data.starts_at, problems) or now
    ends = _time("ends_at", data.ends_at, problems)
    published = _time("published_at", data.published_at, problems) or now
    _window_problems(data.report_type, starts, ends, problems)
    affected = await _affected(session, page, data.report_type, data.affected_resources, problems)
    _raise(problems)
    report = page_row(
        StatusReport,
        page,
        now,
        title=data.title,
        report_type=data.report_type,
        starts_at=starts,
        ends_at=ends,
        affected_resources=affected,
        resolved=False,
    )
    await added(session, report)
    session.add(_new_update(report, data, published, affected, now))
    await _sync(session, report, now)
    return report


async def update_report(
    session: AsyncSession,
    *,
    page: StatusPage,
    report: StatusReport,
    data: ReportUpdate,
    sent: set[str],
    now: datetime,
) -> None:
    problems: list[Problem] = null_problems(sent_values(data, sent), REPORT_NOT_NULL)
    starts = _time("starts_at", data.starts_at, problems) or report.starts_at
    ends = _time("ends_at", data.ends_at, problems) if "ends_at" in sent else report.ends_at
    _window_problems(report.report_type, starts, ends, problems)
    affected = await _affected(session, page, report.report_type, data.affected_resources, problems)
    _raise(problems)
    if data.title is not None:
        report.title = data.title
    report.starts_at, report.ends_at = starts, ends
    if data.affected_resources is not None:
        report.affected_resources = affected
        newest = await _newest_update(session, report)
        if newest is not None:
            newest.affected_resources = affected
            newest.updated_at = now
    await _sync(session, report, now)


async def delete_report(session: AsyncSession, *, report: StatusReport) -> None:
    await session.execute(
        delete(StatusUpdate).where(StatusUpdate.status_report_id == report.id),
        execution_options={"synchronize_session": "fetch"},
    )
    await session.delete(report)
    await session.flush()


async def create_update(
    session: AsyncSession,
    *,
    page: StatusPage,
    report: StatusReport,
    data: UpdateCreate,
    now: datetime,
) -> StatusUpdate:
    await check_held(
        session,
        StatusUpdate.status_report_id,
        report.id,
        limit=MAX_UPDATES,
        full=f"a status report holds at most {MAX_UPDATES} status updates; this one is full",
    )
    problems: list[Problem] = []
    published = _time("published_at", data.published_at, problems) or now
    affected = await _affected(session, page, report.report_type, data.affected_resources, problems)
    _raise(problems)
    update = _new_update(report, data, published, affected, now)
    session.add(update)
    await _sync(session, report, now)
    return update


def _new_update(
    report: StatusReport,
    data: ReportCreate | UpdateCreate,
    published: datetime,
    affected: list[dict[str, Any]],
    now: datetime,
) -> StatusUpdate:
    """A new status update of the report (its message and notify flag from `data`)."""
    return StatusUpdate(
        team_id=report.team_id,
        status_page_id=report.status_page_id,
        status_report_id=report.id,
        message=data.message,
        published_at=published,
        notify_subscribers=data.notify_subscribers,
        affected_resources=affected,
        created_at=now,
        updated_at=now,
    )


async def change_update(
    session: AsyncSession,
    *,
    page: StatusPage,
    report: StatusReport,
    update: StatusUpdate,
    data: UpdateChange,
    sent: set[str],
    now: datetime,
) -> None:
    problems: list[Problem] = null_problems(sent_values(data, sent), UPDATE_NOT_NULL)
    published = _time("published_at", data.published_at, problems)
    affected = await _affected(session, page, report.report_type, data.affected_resources, problems)
    _raise(problems)
    if data.message is not None:
        update.message = data.message
    if data.notify_subscribers is not None:
        update.notify_subscribers = data.notify_subscribers
    if published is not None:
        update.published_at = published
    if data.affected_resources is not None:
        update.affected_resources = affected
    update.updated_at = now
    await _sync(session, report, now)


async def delete_update(
    session: AsyncSession, *, report: StatusReport, update: StatusUpdate, now: datetime
) -> None:
    await session.delete(update)
    await _sync(session, report, now)
