"""Status page resources never point at nothing: deleting an item deletes the resources that
show it, in the same transaction.

A resource names its item by (resource_type, resource_id), which no foreign key can hold
(the id names a row of a different table per type), so the services that delete monitors,
heartbeats, their groups and outgoing webhooks delete through `db.deletions.delete_named`,
which calls `forget` below for the item's resource type before and after the item's DELETE.
`install` registers it for every type a page can show; the app installs it at startup.

Concurrency (PostgreSQL; SQLite runs one writer at a time): adding a resource locks its page,
then takes a KEY SHARE lock on the item it names (status_pages.resources._item). Deleting
locks the pages already showing the item (in id order, like every page lock) before deleting
the item, and looks again afterwards: a resource added meanwhile either committed before the
item's row could be deleted (and is found by the second look) or finds the item gone (422).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db import deletions
from watchpost.status_pages.models import StatusPage, StatusPageResource
from watchpost.status_pages.ordering import arrange
from watchpost.status_pages.resource_types import RESOURCE_KINDS, same_items

_Resource = StatusPageResource


async def forget(session: AsyncSession, resource_type: str, item_id: int) -> None:
    """Delete the resources showing the item, under any type naming it (its pages locked
    first, in id order); the remaining resources of each section are re-packed."""
    shows_item = (
        _Resource.resource_type.in_(same_items(resource_type)),
        _Resource.resource_id == item_id,
    )
    rows = (
        await session.execute(
            select(_Resource.id, _Resource.status_page_id, _Resource.status_page_section_id)
            .where(*shows_item)
            .order_by(_Resource.id)
        )
    ).all()
    if not rows:
        return
    pages = sorted({row.status_page_id for row in rows})
    await session.execute(
        select(StatusPage.id)
        .where(StatusPage.id.in_(pages))
        .order_by(StatusPage.id)
        .with_for_update()
    )
    await session.execute(
        delete(_Resource).where(_Resource.id.in_([row.id for row in rows])),
        execution_options={"synchronize_session": "fetch"},
    )
    sections: dict[int, list[StatusPageResource]] = defaultdict(list)
    remaining = await session.scalars(
        select(_Resource).where(
            _Resource.status_page_section_id.in_({row.status_page_section_id for row in rows})
        )
    )
    for resource in remaining:
        sections[resource.status_page_section_id].append(resource)
    for siblings in sections.values():
        arrange(siblings)
    await session.flush()


def _forget_type(resource_type: str) -> deletions.Forget:
    async def forget_item(session: AsyncSession, item_id: int) -> None:
        await forget(session, resource_type, item_id)

    return forget_item


FORGET: Final[dict[str, deletions.Forget]] = {
    resource_type: _forget_type(resource_type)
    for resource_type, kind in RESOURCE_KINDS.items()
    if kind.model is not None
}
"""resource_type → what deleting an item of it does to the pages: every type a page shows."""


def install() -> None:
    """Register FORGET with db.deletions (again: no change)."""
    for resource_type, forget_item in FORGET.items():
        deletions.register(resource_type, forget_item)
