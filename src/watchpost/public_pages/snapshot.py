"""What the machine-readable outputs of a public page read: its sections and resources with
their current status, and its reports with their published updates.

One read per request (page_data.read_page, as the HTML view's), shared by the
Statuspage-format JSON, the feeds and the badges. Only the current status of each resource is
computed (a one-day window, as the page's `aggregate_state` is): none of these outputs shows
day bars, so the history rollups of the page's window are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import or_
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.public_pages.page_data import read_page
from watchpost.public_pages.page_data import resource_names as resource_names
from watchpost.public_pages.report_view import NEWEST_REPORTS
from watchpost.status_pages.availability import NOT_MONITORED, aggregate_state
from watchpost.status_pages.models import (
    StatusPage,
    StatusPageSection,
    StatusReport,
    StatusUpdate,
)
from watchpost.status_pages.reports import updates_of
from watchpost.status_pages.resource_rows import ResourceRow


@dataclass(frozen=True)
class ShownResource:
    row: ResourceRow
    name: str
    status: str
    """availability.py's current status, after open reports."""


@dataclass(frozen=True)
class ShownSection:
    section: StatusPageSection
    resources: list[ShownResource]


@dataclass(frozen=True)
class ShownReport:
    report: StatusReport
    updates: list[StatusUpdate]
    """Published ones (published_at <= now), oldest first."""


@dataclass(frozen=True)
class Snapshot:
    page: StatusPage
    now: datetime
    sections: list[ShownSection] = field(default_factory=list)
    reports: list[ShownReport] = field(default_factory=list)
    """Newest first (starts_at, then id)."""

    @property
    def resources(self) -> list[ShownResource]:
        return [shown for section in self.sections for shown in section.resources]

    def resource(self, resource_id: int) -> ShownResource | None:
        return next((r for r in self.resources if r.row.id == resource_id), None)

    @property
    def state(self) -> str:
        """The page's aggregate_state (as the API's page document has it)."""
        return aggregate_state(r.status for r in self.resources)

    @property
    def monitored(self) -> list[str]:
        """The current statuses of the resources that are monitored now."""
        return [r.status for r in self.resources if r.status != NOT_MONITORED]

    @property
    def updated_at(self) -> datetime:
        """The latest change to anything shown: the page, a section, a resource, a report
        or a published update."""
        stamps = [self.page.updated_at]
        stamps += [s.section.updated_at for s in self.sections]
        stamps += [r.report.updated_at for r in self.reports]
        stamps += [u.published_at for r in self.reports for u in r.updates]
        return max(stamps)


async def _shown_resources(
    session: AsyncSession, page: StatusPage, now: datetime, only: int | None
) -> tuple[list[StatusPageSection], list[ShownResource]]:
    data = await read_page(session, page, now, days=1, only=only)
    shown = [ShownResource(row, data.name(row), data.found[row.id].status) for row in data.rows]
    return data.sections, shown


async def _reports(
    session: AsyncSession, page: StatusPage, now: datetime, limit: int
) -> list[ShownReport]:
    """The page's newest `limit` reports, plus any older one still open or scheduled (so an
    unresolved incident is never left out)."""
    on_page = {"page_id": page.id}
    reports = list((await session.scalars(NEWEST_REPORTS.limit(limit), on_page)).all())
    still_open = NEWEST_REPORTS.where(
        StatusReport.resolved.is_(False),
        or_(StatusReport.ends_at.is_(None), StatusReport.ends_at > now),
    )
    seen = {r.id for r in reports}
    reports += [r for r in (await session.scalars(still_open, on_page)).all() if r.id not in seen]
    reports.sort(key=lambda r: (r.starts_at, r.id), reverse=True)
    by_report: dict[int, list[StatusUpdate]] = {r.id: [] for r in reports}
    for update in await updates_of(session, [r.id for r in reports]):
        if update.published_at <= now:
            by_report[update.status_report_id].append(update)
    return [ShownReport(r, by_report[r.id]) for r in reports]


async def load_snapshot(
    session: AsyncSession,
    page: StatusPage,
    now: datetime,
    *,
    resources: bool = True,
    reports: bool = True,
    report_limit: int = 50,
    only: int | None = None,
) -> Snapshot:
    """The page's sections and resources (if `resources`) and its newest `report_limit`
    reports and every open one (if `reports`). only: just that resource (a badge's)."""
    sections: list[ShownSection] = []
    if resources:
        found_sections, shown = await _shown_resources(session, page, now, only)
        sections = [
            ShownSection(
                section,
                [r for r in shown if r.row.status_page_section_id == section.id],
            )
            for section in found_sections
        ]
    found = await _reports(session, page, now, report_limit) if reports else []
    return Snapshot(page, now, sections, found)


def affected(entries: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
    """(resource id, status) of each entry of an affected_resources list (ids as stored:
    ints or digit text; anything else is skipped)."""
    found: list[tuple[int, str]] = []
    for entry in entries:
        raw = entry.get("status_page_resource_id")
        if isinstance(raw, int) or (isinstance(raw, str) and raw.isdigit()):
            found.append((int(raw), str(entry.get("status"))))
    return found
