"""Status reports and their updates as a visitor reads them.

API:
    reports = await report_views(session, page, now, names)        # newest first, ≤ MAX_SHOWN
    current, past = split_current(reports)
    report = await report_view(session, page, report_id, now, names)  # ReportView | None
    by_month(past, tz)                                                # [(first of month, [...])]

`names` maps status page resource ids to the names shown (PageView.resources_by_id's names;
affected resources since deleted are left out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Final
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.status_pages.models import StatusPage, StatusReport
from watchpost.status_pages.report_states import (
    IN_PROGRESS,
    SCHEDULED,
    aggregate_state,
    report_state,
)
from watchpost.status_pages.reports import updates_of

MAX_SHOWN: Final = 500
"""Reports a page's history lists (the newest); each still has its own page."""


@dataclass(frozen=True)
class Affected:
    resource_id: int
    name: str
    status: str
    """resolved, degraded, downtime or maintenance."""


@dataclass(frozen=True)
class UpdateView:
    id: int
    message: str
    published_at: datetime
    affected: list[Affected]


@dataclass(frozen=True)
class ReportView:
    id: int
    title: str
    report_type: str
    """manual or maintenance."""
    state: str
    """scheduled, in_progress, resolved or completed (report_states.report_state)."""
    aggregate: str
    """The worst current affected status (operational when none)."""
    starts_at: datetime
    ends_at: datetime | None
    affected: list[Affected]
    updates: list[UpdateView]
    """Newest first."""

    @property
    def current(self) -> bool:
        return self.state in (IN_PROGRESS, SCHEDULED)


def _affected(entries: Sequence[dict[str, object]], names: Mapping[int, str]) -> list[Affected]:
    found = []
    for entry in entries:
        rid = entry.get("status_page_resource_id")  # an int, as reports.py stores it
        if isinstance(rid, int) and rid in names:
            found.append(Affected(rid, names[rid], str(entry.get("status"))))
    return found


async def _views(
    session: AsyncSession,
    reports: Sequence[StatusReport],
    now: datetime,
    names: Mapping[int, str],
) -> list[ReportView]:
    updates = await updates_of(session, [report.id for report in reports])
    by_report: dict[int, list[UpdateView]] = {}
    for update in updates:
        by_report.setdefault(update.status_report_id, []).append(
            UpdateView(
                update.id,
                update.message,
                update.published_at,
                _affected(update.affected_resources or [], names),
            )
        )
    return [
        ReportView(
            id=report.id,
            title=report.title,
            report_type=report.report_type,
            state=report_state(report, now),
            aggregate=aggregate_state(report.affected_resources or []),
            starts_at=report.starts_at,
            ends_at=report.ends_at,
            affected=_affected(report.affected_resources or [], names),
            updates=list(reversed(by_report.get(report.id, []))),
        )
        for report in reports
    ]


NEWEST_REPORTS: Final = (
    select(StatusReport)
    .where(StatusReport.status_page_id == bindparam("page_id"))
    .order_by(StatusReport.starts_at.desc(), StatusReport.id.desc())
)
"""A page's (bound: page_id) reports, newest start first (then highest id); built once."""
_SHOWN: Final = NEWEST_REPORTS.limit(MAX_SHOWN)


async def report_views(
    session: AsyncSession, page: StatusPage, now: datetime, names: Mapping[int, str]
) -> list[ReportView]:
    """The page's reports, newest start first (at most MAX_SHOWN)."""
    reports = await session.scalars(_SHOWN, {"page_id": page.id})
    return await _views(session, list(reports.all()), now, names)


async def report_view(
    session: AsyncSession,
    page: StatusPage,
    report_id: int,
    now: datetime,
    names: Mapping[int, str],
) -> ReportView | None:
    report = await session.scalar(
        select(StatusReport).where(
            StatusReport.status_page_id == page.id, StatusReport.id == report_id
        )
    )
    if report is None:
        return None
    (view,) = await _views(session, [report], now, names)
    return view


def split_current(reports: Sequence[ReportView]) -> tuple[list[ReportView], list[ReportView]]:
    """(current: in progress first, then scheduled soonest first; past: newest first)."""
    ongoing = [r for r in reports if r.state == IN_PROGRESS]  # already newest first
    upcoming = sorted((r for r in reports if r.state == SCHEDULED), key=lambda r: r.starts_at)
    current = ongoing + upcoming
    past = [r for r in reports if not r.current]
    return current, past


def by_month(reports: Sequence[ReportView], tz: ZoneInfo) -> list[tuple[date, list[ReportView]]]:
    """The reports grouped by the month (page's time zone) they started in, newest first."""
    months: dict[date, list[ReportView]] = {}
    for report in reports:
        local = report.starts_at.astimezone(tz)
        months.setdefault(date(local.year, local.month, 1), []).append(report)
    return sorted(months.items(), key=lambda item: item[0], reverse=True)
