"""The team's people, read as team members. No HTTP here."""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import func
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.db.queries import team_object, team_rows
from watchpost.errors import ApiError
from watchpost.listing import Page, PageRequest, Resource, resource, team_page
from watchpost.team_members.schemas import ROLE
from watchpost.teams.models import User

TYPE: Final = "team_member"


def render(user: User, team_name: str) -> Resource:
    first, _, last = user.name.strip().partition(" ")
    attributes: dict[str, Any] = {
        "email": user.email,
        "first_name": first,
        "last_name": last.strip(),
        "role": ROLE,
        "role_id": None,
        "created_at": isoformat_ms(user.created_at),
        "invited_at": None,
        "mobile_app_platforms": [],
        "team_name": team_name,
    }
    return resource(TYPE, user.id, attributes)


async def page(db: AsyncSession, team_id: int, paging: PageRequest) -> Page[User]:
    return await team_page(db, User, paging, team_id=team_id)


async def get(db: AsyncSession, *, team_id: int, object_id: int) -> User:
    return await team_object(db, User, TYPE, team_id=team_id, object_id=object_id)


async def by_email(db: AsyncSession, *, team_id: int, email: str) -> User:
    """The team's member with that address (any case), else a 404."""
    stmt = team_rows(User, team_id=team_id).where(func.lower(User.email) == email.strip().lower())
    found = await db.scalar(stmt)
    if found is None:
        raise ApiError(404, "No team member has that e-mail address")
    return found
