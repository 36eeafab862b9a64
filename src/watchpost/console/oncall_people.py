"""The team's members offered by the on-call forms, through pickers.py: an override's
person (by id) and a shift's people (by lower-cased e-mail address, what the API's events
hold). Each is labelled with the name and the address ("Ada (ada@example.com)"; the
address alone when no name), found by name or address, the chosen ones always offered."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.pickers import Picked, pick
from watchpost.teams.models import Membership, User


def _label() -> Any:
    named = User.name + " (" + User.email + ")"
    return case((func.coalesce(User.name, "") == "", User.email), else_=named)


def _members(team_id: int, key: Any, label: Any) -> Any:
    return (
        select(key, label)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.team_id == team_id)
    )


async def by_id(db: AsyncSession, team_id: int, find: str, chosen: Iterable[int]) -> Picked:
    """The members as (id, label)."""
    label = _label()
    rows = _members(team_id, User.id, label)
    searched = (User.name, User.email)
    return await pick(db, rows, User.id, label, searched=searched, find=find, chosen=chosen)


async def by_email(db: AsyncSession, team_id: int, find: str, chosen: Iterable[str]) -> Picked:
    """The members as (lower-cased address, label)."""
    label, key = _label(), func.lower(User.email)
    rows = _members(team_id, key, label)
    wanted = [address.lower() for address in chosen]
    searched = (User.name, User.email)
    return await pick(db, rows, key, label, searched=searched, find=find, chosen=wanted)
