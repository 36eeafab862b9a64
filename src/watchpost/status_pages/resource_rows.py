"""Status page resources as plain rows: what rendering and the summaries read of them.

A list page reads up to 250 resources; as ORM objects (identity map, instance state, a
descriptor call per attribute read, `json.loads` per rule) they cost more than the rest of
the list. They are read as plain columns instead (db/rows.ListColumns: timestamps as the
API's text, JSON parsed by orjson), and a single resource just created or changed is turned
into the same shape (`resource_row`), so one renderer and one computation serve both.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final, NamedTuple, cast

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import ListColumns
from watchpost.listing import Page, PagedSelect, PageRequest, Render
from watchpost.status_pages.models import StatusPageResource


class ResourceRow(NamedTuple):
    """The columns of a resource a response shows, in the order they are selected."""

    id: int
    status_page_section_id: int
    resource_id: int | None
    resource_type: str
    widget_type: str
    public_name: str | None
    explanation: str
    position: int
    fixed_position: bool
    mark_as_down_for: str
    mark_as_down_metadata_rule: dict[str, Any] | None
    mark_as_degraded_for: str
    mark_as_degraded_metadata_rule: dict[str, Any] | None
    created_at: str
    """As the API writes it (ms precision)."""
    updated_at: str
    created: datetime
    """created_at as an instant: a manually tracked item counts as observed from it."""


COLUMNS: Final = ListColumns(StatusPageResource, ResourceRow._fields[:-1])
_TABLE: Final = StatusPageResource.__table__.c
_SELECT: Final = COLUMNS.select().add_columns(StatusPageResource.created_at.label("created"))
_OF_PAGE: Final = PagedSelect(
    _SELECT.where(
        _TABLE.team_id == bindparam("team_id"), _TABLE.status_page_id == bindparam("page_id")
    ),
    key=COLUMNS.key,
)
"""A page of a status page's resources, by id."""
_ALL_OF_PAGE: Final = _SELECT.where(_TABLE.status_page_id == bindparam("page_id"))


def resource_row(resource: StatusPageResource) -> ResourceRow:
    """An ORM resource (just created, read or changed) as a row."""
    return ResourceRow._make((*COLUMNS.row(resource), resource.created_at))


def _rows(found: Any) -> list[ResourceRow]:
    return [ResourceRow(*row) for row in found]


async def page_of_rows(
    session: AsyncSession, *, team_id: int, page_id: int, paging: PageRequest
) -> Page[ResourceRow]:
    """One page of the status page's resources, ordered by id."""
    params = {"team_id": team_id, "page_id": page_id}
    render = cast(Render, _rows)
    return cast(Page[ResourceRow], await _OF_PAGE.page(session, paging, params, render))


async def all_rows(session: AsyncSession, *, page_id: int) -> list[ResourceRow]:
    """Every resource of the status page (through the session: changes not yet flushed are
    flushed first)."""
    return _rows(await session.execute(_ALL_OF_PAGE, {"page_id": page_id}))
