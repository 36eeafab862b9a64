"""Sections of a status page: their order (ordering.py), create, read, change, delete."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import Select, delete
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import added, team_object, team_rows
from watchpost.errors import InvalidRequest
from watchpost.listing import Page, PageRequest, paginate
from watchpost.problems import null_problems, sent_values
from watchpost.status_pages.limits import MAX_SECTIONS, check_room
from watchpost.status_pages.models import (
    StatusPage,
    StatusPageResource,
    StatusPageSection,
    page_row,
)
from watchpost.status_pages.ordering import PositionHeld, arrange
from watchpost.status_pages.pages import Problems
from watchpost.status_pages.schemas import SECTION_NOT_NULL, SectionCreate, SectionUpdate

SECTION = "status_page_section"
PlacedT = TypeVar("PlacedT", StatusPageSection, StatusPageResource)
Siblings = Callable[..., Awaitable[list[Any]]]
"""A section's or resource's siblings in their order, from the container it is in (the page's
_sections, a section's resources); `exclude=id` leaves one out."""


def sections_of(*, team_id: int, page_id: int) -> Select[tuple[StatusPageSection]]:
    return team_rows(StatusPageSection, team_id=team_id, status_page_id=page_id)


async def list_sections(
    session: AsyncSession, *, team_id: int, page_id: int, paging: PageRequest
) -> Page[StatusPageSection]:
    """A page of the status page's sections, in their order on the page."""
    stmt = sections_of(team_id=team_id, page_id=page_id)
    return await paginate(session, stmt, paging, order_by=StatusPageSection.position)


async def get_section(
    session: AsyncSession, *, team_id: int, page_id: int, section_id: int
) -> StatusPageSection:
    return await team_object(
        session,
        StatusPageSection,
        SECTION,
        team_id=team_id,
        object_id=section_id,
        status_page_id=page_id,
    )


async def _sections(
    session: AsyncSession, page: StatusPage, *, exclude: int | None = None
) -> list[StatusPageSection]:
    stmt = sections_of(team_id=page.team_id, page_id=page.id).order_by(
        StatusPageSection.position, StatusPageSection.id
    )
    if exclude is not None:
        stmt = stmt.where(StatusPageSection.id != exclude)
    return list((await session.scalars(stmt)).all())


def place(
    siblings: Sequence[Any],
    item: Any,
    target: int | None,
    what: str,
    previous: int | None = None,
) -> None:
    try:
        arrange(siblings, item, target, previous)
    except PositionHeld as exc:
        raise InvalidRequest.field(
            "position",
            f"no room at {target}: fixed-position {what}s (from id {exc.holder.id}) fill every "
            "position after it; choose another position",
        ) from None


async def add_placed(
    session: AsyncSession, siblings: Sequence[Any], item: PlacedT, target: int | None, what: str
) -> PlacedT:
    """A new `what` (section or resource) placed at `target` among its siblings (others
    shift down; None: at the end), then added."""
    place(siblings, item, target, what)
    return await added(session, item)


async def move_placed(
    item: PlacedT, siblings: Siblings, target: int | None, what: str, pin_changed: bool
) -> None:
    """An updated `what` moved to `target` among its siblings (the others make room and
    close up); without a target, one just pinned or unpinned joins or leaves the flowing
    ones where it stands."""
    if target is not None:
        place(await siblings(exclude=item.id), item, target, what, previous=item.position)
    elif pin_changed:
        arrange(await siblings())


async def delete_placed(session: AsyncSession, item: PlacedT, siblings: Siblings) -> None:
    """Delete a section or resource; its siblings close up."""
    await session.delete(item)
    await session.flush()
    arrange(await siblings())
    await session.flush()


async def create_section(
    session: AsyncSession, *, page: StatusPage, data: SectionCreate, now: datetime
) -> StatusPageSection:
    """A new section at data.position (others shift down) or at the end."""
    await check_room(session, page=page, what="sections", limit=MAX_SECTIONS)
    section = page_row(
        StatusPageSection,
        page,
        now,
        name=data.name.strip(),
        position=data.position or 0,
        fixed_position=data.fixed_position,
    )
    siblings = await _sections(session, page)
    return await add_placed(session, siblings, section, data.position, "section")


async def update_section(
    session: AsyncSession,
    *,
    page: StatusPage,
    section: StatusPageSection,
    data: SectionUpdate,
    sent: set[str],
    now: datetime,
) -> StatusPageSection:
    problems: Problems = null_problems(sent_values(data, sent), SECTION_NOT_NULL)
    if problems:
        raise InvalidRequest(problems)
    if data.name is not None:
        section.name = data.name.strip()
    pinned = data.fixed_position is not None and data.fixed_position != section.fixed_position
    if data.fixed_position is not None:
        section.fixed_position = data.fixed_position
    await move_placed(section, partial(_sections, session, page), data.position, "section", pinned)
    section.updated_at = now
    await session.flush()
    return section


async def delete_section(
    session: AsyncSession, *, page: StatusPage, section: StatusPageSection
) -> None:
    """Delete the section and the resources it holds (as the hosted API does: `terraform
    destroy` deletes a section and the resources in it in any order, and takes a 404 for a
    resource already gone as done)."""
    await session.execute(
        delete(StatusPageResource).where(StatusPageResource.status_page_section_id == section.id),
        execution_options={"synchronize_session": "fetch"},
    )
    await delete_placed(session, section, partial(_sections, session, page))


async def first_section(session: AsyncSession, page: StatusPage, now: datetime) -> int:
    """The page's first section, created (unnamed) when the page has none."""
    sections = await _sections(session, page)
    if sections:
        return sections[0].id
    section = page_row(StatusPageSection, page, now, name="", position=0, fixed_position=False)
    return (await added(session, section)).id
