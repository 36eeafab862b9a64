"""The team's people, read as team members. No HTTP here."""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.errors import ApiError, NotFound
from watchpost.listing import Page, PageRequest, Resource, paginate, resource
from watchpost.teams.models import Membership, User, team_users

TYPE: Final = "team_member"


def render(member: tuple[User, str], team_name: str) -> Resource:
    """A member: the person and their role in the team."""
    user, role = member
    first, _, last = user.name.strip().partition(" ")
    attributes: dict[str, Any] = {
        "email": user.email,
        "first_name": first,
        "last_name": last.strip(),
        "role": role,
        "role_id": None,
        "created_at": isoformat_ms(user.created_at),
        "invited_at": None,
        "mobile_app_platforms": [],
        "team_name": team_name,
    }
    return resource(TYPE, user.id, attributes)


def _members(team_id: int) -> Any:
    return (
        select(User, Membership.role)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.team_id == team_id)
    )


async def page(db: AsyncSession, team_id: int, paging: PageRequest) -> Page[tuple[User, str]]:
    found = await paginate(db, team_users(team_id), paging, order_by=User.id)
    roles = dict(
        (
            await db.execute(
                select(Membership.user_id, Membership.role).where(
                    Membership.team_id == team_id,
                    Membership.user_id.in_([user.id for user in found.data]),
                )
            )
        ).tuples()
    )
    return Page([(user, roles[user.id]) for user in found.data], found.links)


async def _one(db: AsyncSession, stmt: Any) -> tuple[User, str] | None:
    row = (await db.execute(stmt.limit(1))).first()
    return None if row is None else (row[0], row[1])


async def get(db: AsyncSession, *, team_id: int, object_id: int) -> tuple[User, str]:
    found = await _one(db, _members(team_id).where(User.id == object_id))
    if found is None:
        raise NotFound(TYPE, object_id)
    return found


async def by_email(db: AsyncSession, *, team_id: int, email: str) -> tuple[User, str]:
    """The team's member with that address (any case), else a 404."""
    stmt = _members(team_id).where(func.lower(User.email) == email.strip().lower())
    found = await _one(db, stmt)
    if found is None:
        raise ApiError(404, "No team member has that e-mail address")
    return found
