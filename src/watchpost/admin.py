"""What the command line's administration commands do (`watchpost token …`, `watchpost user
create`), each in the caller's transaction and recorded in the team's audit log."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import cli_actor, record_token
from watchpost.people.accounts import create_user, make_link, set_password
from watchpost.teams.models import ApiToken
from watchpost.teams.service import create_team_token, get_or_create_team, revoke_token


async def create_token(session: AsyncSession, *, team_name: str, now: datetime) -> str:
    """A new token of the team (created if needed); the only time it is seen."""
    team = await get_or_create_team(session, name=team_name, now=now)
    row, token = await create_team_token(session, team_id=team.id, now=now)
    await record_token(session, row, action="token.created", actor=cli_actor(), now=now)
    return token


async def revoke(session: AsyncSession, *, prefix: str, now: datetime) -> ApiToken:
    token = await revoke_token(session, prefix=prefix, now=now)
    await record_token(session, token, action="token.revoked", actor=cli_actor(), now=now)
    return token


async def add_person(
    session: AsyncSession,
    *,
    team_name: str,
    email: str,
    name: str,
    role: str,
    password: str | None,
    now: datetime,
) -> tuple[int, str | None]:
    """The person added to the team; their id, and the one-time link's token that sets their
    password (None when given one, or when they have one already)."""
    user = await create_user(
        session, team_name=team_name, email=email, name=name, now=now, role=role
    )
    if password is not None:
        await set_password(session, user, password, now)
        return user.id, None
    if user.password_hash is not None:
        return user.id, None
    return user.id, await make_link(session, user=user, purpose="password", now=now)
