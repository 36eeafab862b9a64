"""The one read every public answer of a page starts from: its resources (rows and the items
they show), its sections, and each resource's summary (status.records.summaries, then open
reports' statuses), with the names the page shows.

The HTML view (view.py: the page's whole history window) and the machine-readable answers
(snapshot.py: a one-day window, as the API's `aggregate_state`) both read through here;
summaries keep each subject's tally of its older rollups between requests (kept.py), so a
request reads a few rows per subject.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.status_pages.availability import Summary
from watchpost.status_pages.models import StatusPage, StatusPageSection
from watchpost.status_pages.records import summaries
from watchpost.status_pages.rendering import public_name
from watchpost.status_pages.report_states import with_reports
from watchpost.status_pages.resource_rows import ResourceRow, all_rows
from watchpost.status_pages.resources import load_targets


@dataclass(frozen=True)
class PageData:
    rows: list[ResourceRow]
    """By position, then id."""
    targets: dict[Any, Any]
    sections: list[StatusPageSection]
    """By position, then id."""
    found: dict[int, Summary]
    """Resource id → its summary, open reports' statuses applied."""

    def name(self, row: ResourceRow) -> str:
        return public_name(row, self.targets.get((row.resource_type, row.resource_id)))


_SECTIONS: Final = (
    select(StatusPageSection)
    .where(StatusPageSection.status_page_id == bindparam("page_id"))
    .order_by(StatusPageSection.position, StatusPageSection.id)
)
"""A page's (bound: page_id) sections in their order; built once."""


async def sections_of(session: AsyncSession, page: StatusPage) -> list[StatusPageSection]:
    return list((await session.scalars(_SECTIONS, {"page_id": page.id})).all())


async def read_page(
    session: AsyncSession,
    page: StatusPage,
    now: datetime,
    *,
    days: int | None = None,
    only: int | None = None,
) -> PageData:
    """The page's data with summaries over `days` (default its history); only: just that
    resource (a badge's)."""
    rows = await all_rows(session, page_id=page.id)
    if only is not None:
        rows = [row for row in rows if row.id == only]
    targets = await load_targets(session, rows)
    found = await summaries(
        session, rows, targets, page=page, now=now, days=days, keep_tallies=True
    )
    found = await with_reports(session, found, page_id=page.id, now=now)
    rows.sort(key=lambda row: (row.position, row.id))
    return PageData(rows, targets, await sections_of(session, page), found)


async def resource_names(session: AsyncSession, page: StatusPage) -> dict[int, str]:
    """Resource id → the name shown, without computing any status (reports, feeds)."""
    rows = await all_rows(session, page_id=page.id)
    targets = await load_targets(session, rows)
    return {
        row.id: public_name(row, targets.get((row.resource_type, row.resource_id))) for row in rows
    }
