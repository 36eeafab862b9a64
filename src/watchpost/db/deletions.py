"""Deleting an item that other rows name by (type, id), which no foreign key can follow.

A status page resource names the monitor, group or webhook it shows by its type and id, so
the database cannot remove the resource when the item goes. The package holding such names
registers one `Forget` per item type it names (status_pages/references.py, installed by
the app at startup); the services that delete those items delete through `delete_named`.
Deleting an item of a type nobody registered is an error: a forgotten registration fails
the delete instead of leaving names of nothing behind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.base import IdMixin

Forget = Callable[[AsyncSession, int], Awaitable[None]]
"""Removes the rows naming an item (session, item id). Called twice in the deleting
transaction: before the item's DELETE, so the referring package can take its locks first,
and after it, to find a name added meanwhile (committed before the DELETE could go on)."""

_FORGET: dict[str, Forget] = {}


def register(item_type: str, forget: Forget) -> None:
    """What deleting an item of item_type must also remove; one Forget per type."""
    if _FORGET.setdefault(item_type, forget) is not forget:
        raise ValueError(f"{item_type}: a different Forget is registered already")


def registered() -> frozenset[str]:
    """The item types with a Forget."""
    return frozenset(_FORGET)


async def delete_named(session: AsyncSession, item: IdMixin, *, item_type: str) -> None:
    """Delete item, and the rows naming it, in the session's transaction."""
    forget = _FORGET.get(item_type)
    if forget is None:
        raise LookupError(f"nothing registered for deleting a {item_type}: was it installed?")
    await forget(session, item.id)
    await session.delete(item)
    await session.flush()
    await forget(session, item.id)
