"""Resources of a status page: the item each shows, its widget; create, read, change, delete.

A resource points at an item (a monitor, heartbeat, group … or nothing, when it is tracked
by hand) and shows its status in one of the widgets its kind takes (resource_types.py).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import one_or_404
from watchpost.errors import InvalidRequest
from watchpost.listing import Page, PageRequest
from watchpost.problems import null_problems, sent_values
from watchpost.status_pages.availability import aggregate_state
from watchpost.status_pages.limits import MAX_RESOURCES, check_room
from watchpost.status_pages.metadata_rules import incident_rules
from watchpost.status_pages.models import (
    StatusPage,
    StatusPageResource,
    StatusPageSection,
    page_row,
)
from watchpost.status_pages.ordering import arrange
from watchpost.status_pages.pages import Problems
from watchpost.status_pages.records import ITEMS, item_columns, plain_rows, summaries
from watchpost.status_pages.report_states import with_reports
from watchpost.status_pages.resource_rows import ResourceRow, all_rows, page_of_rows
from watchpost.status_pages.resource_types import (
    DEFAULT_WIDGET,
    MANUAL,
    RESOURCE_KINDS,
    is_supported,
    model_of,
    widget_from_history,
)
from watchpost.status_pages.schemas import RESOURCE_NOT_NULL, ResourceFields
from watchpost.status_pages.sections import (
    add_placed,
    delete_placed,
    first_section,
    move_placed,
    place,
    sections_of,
)
from watchpost.validation import parse_id

RESOURCE = "status_page_resource"


@functools.cache
def _targets_of(resource_type: str) -> Select[Any]:
    """The items of a type (bound: ids) as plain rows of what rendering and the summaries
    read of them."""
    model = model_of(resource_type)
    assert model is not None  # load_targets asks only for types that have one
    names = RESOURCE_KINDS[resource_type].name_attrs
    columns = item_columns(model, names, ITEMS.get(resource_type))
    return select(*columns).where(model.id.in_(bindparam("ids", expanding=True)))


async def load_targets(
    session: AsyncSession, resources: Sequence[ResourceRow]
) -> dict[tuple[str, int | None], Any]:
    """The items the resources point at, one query per resource type."""
    wanted: dict[str, set[int]] = {}
    for res in resources:
        if res.resource_id is not None:
            wanted.setdefault(res.resource_type, set()).add(res.resource_id)
    found: dict[tuple[str, int | None], Any] = {}
    for resource_type, ids in wanted.items():
        if model_of(resource_type) is None:
            continue
        for item in await plain_rows(session, _targets_of(resource_type), {"ids": sorted(ids)}):
            found[(resource_type, item.id)] = item
    return found


async def page_state(session: AsyncSession, *, page: StatusPage, now: datetime) -> str:
    """aggregate_state: the worst current status among the page's resources."""
    resources = await all_rows(session, page_id=page.id)
    targets = await load_targets(session, resources)
    found = await summaries(session, resources, targets, page=page, now=now, days=1)
    found = await with_reports(session, found, page_id=page.id, now=now)
    return aggregate_state(summary.status for summary in found.values())


def resources_of(*, team_id: int, page_id: int) -> Select[tuple[StatusPageResource]]:
    return select(StatusPageResource).where(
        StatusPageResource.team_id == team_id, StatusPageResource.status_page_id == page_id
    )


async def list_resources(
    session: AsyncSession, *, team_id: int, page_id: int, paging: PageRequest
) -> Page[ResourceRow]:
    return await page_of_rows(session, team_id=team_id, page_id=page_id, paging=paging)


async def get_resource(
    session: AsyncSession, *, team_id: int, page_id: int, resource_id: int
) -> StatusPageResource:
    return await one_or_404(
        session,
        resources_of(team_id=team_id, page_id=page_id).where(StatusPageResource.id == resource_id),
        RESOURCE,
        resource_id,
    )


async def _in_section(
    session: AsyncSession, section_id: int, *, exclude: int | None = None
) -> list[StatusPageResource]:
    stmt = select(StatusPageResource).where(StatusPageResource.status_page_section_id == section_id)
    if exclude is not None:
        stmt = stmt.where(StatusPageResource.id != exclude)
    return list((await session.scalars(stmt)).all())


@dataclass
class Prepared:
    """A resource's validated values, before it is placed."""

    values: dict[str, Any]
    section_id: int | None


async def _prepare(
    session: AsyncSession,
    *,
    page: StatusPage,
    team_name: str,
    data: ResourceFields,
    sent: set[str],
    current: StatusPageResource | None,
) -> Prepared:
    """Validate a create (current None) or PATCH against the resource as it will be."""
    problems: Problems = (
        null_problems(sent_values(data, sent), RESOURCE_NOT_NULL) if current is not None else []
    )
    resource_type = data.resource_type or (current.resource_type if current else MANUAL)
    resource_id, item_problems = await _item(
        session, page=page, resource_type=resource_type, data=data, sent=sent, current=current
    )
    widget = _widget(data, current)
    values: dict[str, Any] = {
        "resource_type": resource_type,
        "resource_id": resource_id,
        "widget_type": widget,
    }
    rules, rule_problems = await incident_rules(
        session, team_id=page.team_id, team_name=team_name, data=data, sent=sent, current=current
    )
    problems += item_problems + _widget_problems(widget, resource_type) + rule_problems
    problems += await _section_problems(session, page, data.status_page_section_id)
    values |= rules | _shown_values(data, sent)
    if problems:
        raise InvalidRequest(problems)
    return Prepared(values=values, section_id=data.status_page_section_id)


def _raw_item_id(
    resource_type: str, data: ResourceFields, sent: set[str], current: StatusPageResource | None
) -> Any:
    """The resource_id as sent, else the current one while the type stays."""
    if "resource_id" in sent:
        return data.resource_id
    if current is not None and current.resource_type == resource_type:
        return current.resource_id
    return None


async def _item(
    session: AsyncSession,
    *,
    page: StatusPage,
    resource_type: str,
    data: ResourceFields,
    sent: set[str],
    current: StatusPageResource | None,
) -> tuple[int | None, Problems]:
    """The id of the item the resource shows: one of the team's items of resource_type."""
    problems: Problems = []
    if current is None and data.resource_type is None and data.resource_id is not None:
        problems.append(("resource_type", "resource_type is required when resource_id is given"))
    raw_id = _raw_item_id(resource_type, data, sent, current)
    if not is_supported(resource_type):
        message = f"resource_type {resource_type} is not supported by this server yet"
        return None, [*problems, ("resource_type", message)]
    if resource_type == MANUAL:
        if raw_id is not None:
            message = "resource_id must be omitted or null for ManuallyTrackedItem"
            problems.append(("resource_id", message))
        return None, problems
    if raw_id is None:
        return None, [*problems, ("resource_id", f"resource_id is required for {resource_type}")]
    resource_id = parse_id(str(raw_id).strip())
    if resource_id is None:
        message = f"resource_id must be the id of a {resource_type}"
        return None, [*problems, ("resource_id", message)]
    model = model_of(resource_type)
    assert model is not None  # is_supported checked it
    # KEY SHARE: the item cannot be deleted until this resource is committed (and the
    # delete then removes the resource too; see references.py).
    found = await session.scalar(
        select(model.id)
        .where(model.id == resource_id, model.team_id == page.team_id)
        .with_for_update(read=True, key_share=True)
    )
    if found is None:
        message = f"resource_id {resource_id} names no {resource_type} of your team"
        problems.append(("resource_id", message))
    return resource_id, problems


def _widget(data: ResourceFields, current: StatusPageResource | None) -> str:
    """widget_type as sent, else as history asks, else the current or default one."""
    if data.widget_type is not None:
        return data.widget_type
    if data.history is not None:
        return widget_from_history(data.history, current.widget_type if current else None)
    return current.widget_type if current else DEFAULT_WIDGET


def _widget_problems(widget: str, resource_type: str) -> Problems:
    kind = RESOURCE_KINDS[resource_type]
    if widget in kind.widgets:
        return []
    message = (
        f"widget_type {widget} does not fit resource_type {resource_type} "
        f"(it takes: {', '.join(kind.widgets)})"
    )
    return [("widget_type", message)]


async def _section_problems(
    session: AsyncSession, page: StatusPage, section_id: int | None
) -> Problems:
    if section_id is None:
        return []
    owner = await session.scalar(
        sections_of(team_id=page.team_id, page_id=page.id)
        .where(StatusPageSection.id == section_id)
        .with_only_columns(StatusPageSection.id)
    )
    if owner is not None:
        return []
    message = f"status_page_section_id {section_id} names no section of this status page"
    return [("status_page_section_id", message)]


def _shown_values(data: ResourceFields, sent: set[str]) -> dict[str, Any]:
    """public_name (blank clears it), explanation and fixed_position, when given."""
    values: dict[str, Any] = {}
    if "public_name" in sent:
        values["public_name"] = (data.public_name or "").strip() or None
    if data.explanation is not None:
        values["explanation"] = data.explanation
    if data.fixed_position is not None:
        values["fixed_position"] = data.fixed_position
    return values


async def create_resource(
    session: AsyncSession,
    *,
    page: StatusPage,
    team_name: str,
    data: ResourceFields,
    sent: set[str],
    now: datetime,
) -> StatusPageResource:
    """A new resource at data.position of its section (others shift down) or at the end."""
    await check_room(session, page=page, what="resources", limit=MAX_RESOURCES)
    prepared = await _prepare(
        session, page=page, team_name=team_name, data=data, sent=sent, current=None
    )
    section_id = prepared.section_id or await first_section(session, page, now)
    resource = page_row(
        StatusPageResource,
        page,
        now,
        status_page_section_id=section_id,
        position=data.position or 0,
        **{"explanation": "", "fixed_position": False, **prepared.values},
    )
    siblings = await _in_section(session, section_id)
    return await add_placed(session, siblings, resource, data.position, "resource")


async def update_resource(
    session: AsyncSession,
    *,
    page: StatusPage,
    team_name: str,
    resource: StatusPageResource,
    data: ResourceFields,
    sent: set[str],
    now: datetime,
) -> StatusPageResource:
    """Apply a PATCH; a new section or position moves the resource (ordering.py)."""
    prepared = await _prepare(
        session, page=page, team_name=team_name, data=data, sent=sent, current=resource
    )
    pinned = prepared.values.get("fixed_position", resource.fixed_position)
    pinned_changed = pinned != resource.fixed_position
    for name, value in prepared.values.items():
        setattr(resource, name, value)
    old_section = resource.status_page_section_id
    new_section = prepared.section_id or old_section
    if new_section != old_section:
        place(await _in_section(session, new_section), resource, data.position, "resource")
        resource.status_page_section_id = new_section
        arrange(await _in_section(session, old_section, exclude=resource.id))
    else:
        siblings = functools.partial(_in_section, session, old_section)
        await move_placed(resource, siblings, data.position, "resource", pinned_changed)
    resource.updated_at = now
    await session.flush()
    return resource


async def delete_resource(session: AsyncSession, *, resource: StatusPageResource) -> None:
    siblings = functools.partial(_in_section, session, resource.status_page_section_id)
    await delete_placed(session, resource, siblings)
