"""The `aggregate_state` of several status pages at once, for a list of them.

`resources.page_state` reads one page: its resources, their items, their summaries over a
one-day window and its open reports, a few queries a page. `page_states` answers the same
for many pages with the same reads done once for all of them: the resources of every page
(one query), their items (one per type), the summaries (one call per time zone and shortest
incident length among the pages, the two page attributes a one-day summary depends on) and
the open reports of every page (one query). Resource ids are unique across pages, so one
summary call serves many pages; each page's state is then the worst status among its own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Final

from sqlalchemy import bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.status_pages.availability import Summary, aggregate_state
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusReport
from watchpost.status_pages.records import summaries
from watchpost.status_pages.report_states import RESOLVED
from watchpost.status_pages.report_states import aggregate_state as worst_of
from watchpost.status_pages.resource_rows import COLUMNS, ResourceRow
from watchpost.status_pages.resources import load_targets

_ROWS_OF_PAGES: Final = (
    COLUMNS.select()
    .add_columns(StatusPageResource.created_at.label("created"), StatusPageResource.status_page_id)
    .where(StatusPageResource.status_page_id.in_(bindparam("page_ids", expanding=True)))
)
"""Every resource of the pages (bound: page_ids) as rows, each with its page's id."""

_OPEN_AFFECTED_OF_PAGES: Final = select(
    StatusReport.status_page_id, StatusReport.affected_resources
).where(
    StatusReport.status_page_id.in_(bindparam("page_ids", expanding=True)),
    StatusReport.resolved.is_(False),
    StatusReport.starts_at <= bindparam("now"),
    or_(StatusReport.ends_at.is_(None), StatusReport.ends_at > bindparam("now")),
)
"""The affected resources of the pages' reports open at `now` (report_states.open_statuses
for many pages)."""


async def _rows_by_page(session: AsyncSession, page_ids: list[int]) -> dict[int, list[ResourceRow]]:
    found: dict[int, list[ResourceRow]] = defaultdict(list)
    for *columns, page_id in await session.execute(_ROWS_OF_PAGES, {"page_ids": page_ids}):
        found[page_id].append(ResourceRow(*columns))
    return found


async def _open_statuses(
    session: AsyncSession, page_ids: list[int], now: datetime
) -> dict[int, dict[int, str]]:
    """Page id → (resource id → the status its open reports give it now, the worst)."""
    named: dict[int, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    params = {"page_ids": page_ids, "now": now}
    for page_id, affected in await session.execute(_OPEN_AFFECTED_OF_PAGES, params):
        for entry in affected or []:
            if entry["status"] != RESOLVED:
                named[page_id][int(entry["status_page_resource_id"])].append(entry["status"])
    return {
        page_id: {
            rid: worst_of({"status": s} for s in statuses) for rid, statuses in by_rid.items()
        }
        for page_id, by_rid in named.items()
    }


async def page_states(
    session: AsyncSession, pages: Sequence[StatusPage], *, now: datetime
) -> dict[int, str]:
    """Page id → its aggregate_state now, as `resources.page_state` answers for each."""
    if not pages:
        return {}
    page_ids = [page.id for page in pages]
    rows = await _rows_by_page(session, page_ids)
    targets = await load_targets(session, [row for found in rows.values() for row in found])
    alike: dict[tuple[str, int], list[StatusPage]] = defaultdict(list)
    for page in pages:
        alike[(page.timezone, page.min_incident_length or 0)].append(page)
    found: dict[int, Summary] = {}
    for group in alike.values():
        group_rows = [row for page in group for row in rows.get(page.id, [])]
        if group_rows:
            found |= await summaries(session, group_rows, targets, page=group[0], now=now, days=1)
    reported = await _open_statuses(session, page_ids, now)
    states = {}
    for page in pages:
        statuses = reported.get(page.id, {})
        states[page.id] = aggregate_state(
            statuses.get(row.id, found[row.id].status)
            for row in rows.get(page.id, [])
            if row.id in found
        )
    return states
