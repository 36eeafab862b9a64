"""How much one status page may hold, and how much of it one list response carries.

Every resource of a page is summarised on each read of the page (its `aggregate_state`), and
every resource listed carries its day-by-day history: without bounds one page, or one list
request, could cost any amount of work and memory.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import check_held
from watchpost.status_pages.models import (
    StatusPage,
    StatusPageResource,
    StatusPageSection,
    StatusReport,
)

MAX_RESOURCES: Final = 1_000
MAX_SECTIONS: Final = 1_000
LIST_HISTORY_DAYS: Final = 30
"""Days of `status_history` each item of a resource list carries (the most recent ones); a
single GET carries the page's whole `history`. 250 items of a 365-day page would otherwise
build ≈ 8 MB (docs/benchmarks.md, "Status page resource lists")."""

_HELD: Final = {
    "resources": StatusPageResource.status_page_id,
    "sections": StatusPageSection.status_page_id,
    "status reports": StatusReport.status_page_id,
}
"""What a page holds → the column naming the page."""


async def check_room(session: AsyncSession, *, page: StatusPage, what: str, limit: int) -> None:
    """A 422 naming the limit when the page already holds `limit` of `what`.

    The caller holds the page's lock (its write transaction), so two creates cannot both
    pass the count.
    """
    await check_held(
        session,
        _HELD[what],
        page.id,
        limit=limit,
        full=f"a status page holds at most {limit:,} {what}; this one is full",
    )
