"""Teams and their tokens: what the CLI and the auth layer need (people: people/accounts.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from watchpost.crypto import hash_token, random_token
from watchpost.db.queries import added
from watchpost.teams.models import ApiToken, Membership, Team, User

TOKEN_PREFIX = "wp_"  # noqa: S105  (a public prefix, not a secret)
SHOWN_PREFIX_LENGTH = 12


class TokenError(Exception):
    """A token operation that cannot be done, with a message for the operator."""


@dataclass(frozen=True)
class Principal:
    """Who is calling: the team a valid token belongs to."""

    team_id: int
    team_name: str
    token_id: int
    prefix: str = ""  # the token's shown prefix: how the audit log names it


async def get_or_create_team(session: AsyncSession, *, name: str, now: datetime) -> Team:
    team = await session.scalar(select(Team).where(Team.name == name))
    if team is None:
        team = await added(session, Team(name=name, created_at=now))
    return team


async def create_token(session: AsyncSession, *, team_name: str, now: datetime) -> str:
    """Mint a token for the team (created if needed); the plain token is returned only here."""
    team = await get_or_create_team(session, name=team_name, now=now)
    _, token = await create_team_token(session, team_id=team.id, now=now)
    return token


async def create_team_token(
    session: AsyncSession,
    *,
    team_id: int,
    now: datetime,
    name: str | None = None,
    created_by_id: int | None = None,
) -> tuple[ApiToken, str]:
    """A new token of the team (named, and by whom, when a person makes it in the console):
    its row and the plain token, which exists only here."""
    token = random_token(TOKEN_PREFIX)
    row = ApiToken(
        team_id=team_id,
        prefix=token[:SHOWN_PREFIX_LENGTH],
        token_hash=hash_token(token),
        created_at=now,
        name=(name or "").strip()[:255] or None,
        created_by_id=created_by_id,
    )
    return await added(session, row), token


async def team_tokens(session: AsyncSession, *, team_id: int) -> list[tuple[ApiToken, str | None]]:
    """The team's tokens, newest first, each with the name of the person who made it (None:
    made by the CLI, or that person is gone)."""
    rows = await session.execute(
        select(ApiToken, User.name)
        .outerjoin(User, User.id == ApiToken.created_by_id)
        .where(ApiToken.team_id == team_id)
        .order_by(ApiToken.id.desc())
    )
    return [(token, by) for token, by in rows.tuples()]


async def revoke_team_token(
    session: AsyncSession, *, team_id: int, token_id: int, now: datetime
) -> ApiToken:
    """Revokes the team's token token_id (already revoked: unchanged); another team's token
    is no token (TokenError)."""
    token = await session.scalar(
        select(ApiToken).where(ApiToken.id == token_id, ApiToken.team_id == team_id)
    )
    if token is None:
        raise TokenError("no such token")
    if token.revoked_at is None:
        token.revoked_at = now
        await session.flush()
    return token


async def list_tokens(session: AsyncSession) -> list[tuple[ApiToken, str]]:
    rows = await session.execute(
        select(ApiToken, Team.name).join(Team, Team.id == ApiToken.team_id).order_by(ApiToken.id)
    )
    return [(token, name) for token, name in rows.tuples()]


async def revoke_token(session: AsyncSession, *, prefix: str, now: datetime) -> ApiToken:
    """Revoke the one active token that starts with prefix (its shown prefix, or the token)."""
    if len(prefix) < len(TOKEN_PREFIX) + 4:
        raise TokenError("give at least the first 7 characters of the token")
    shown = prefix[:SHOWN_PREFIX_LENGTH]
    matches = (
        await session.scalars(
            select(ApiToken).where(
                ApiToken.prefix.startswith(shown, autoescape=True), ApiToken.revoked_at.is_(None)
            )
        )
    ).all()
    if not matches:
        raise TokenError(f"no active token starts with {shown!r}")
    if len(matches) > 1:
        raise TokenError(f"{len(matches)} active tokens start with {shown!r}; give more of it")
    token = matches[0]
    token.revoked_at = now
    await session.flush()
    return token


_tokens, _teams = ApiToken.__table__.c, Team.__table__.c
# Built once, on the tables rather than the ORM classes: constructing and ORM-compiling the
# statement on every request cost more (≈ 400 µs of CPU) than running it.
_AUTHENTICATE = (
    select(_tokens.id, _tokens.team_id, _tokens.prefix, _teams.name)
    .join_from(ApiToken.__table__, Team.__table__, _teams.id == _tokens.team_id)
    .where(_tokens.token_hash == bindparam("token_hash"), _tokens.revoked_at.is_(None))
)


async def authenticate(db: AsyncSession | AsyncConnection, token: str) -> Principal | None:
    """The principal of an active token, or None. One indexed lookup by hash."""
    row = (await db.execute(_AUTHENTICATE, {"token_hash": hash_token(token)})).first()
    if row is None:
        return None
    return Principal(team_id=row.team_id, team_name=row.name, token_id=row.id, prefix=row.prefix)


@dataclass(frozen=True)
class Member:
    """A person in a team, as the team's admins see them."""

    user: User
    role: str
    since: datetime


async def team_members(session: AsyncSession, *, team_id: int) -> list[Member]:
    """The team's people by name (a team has tens of people, not thousands: one page)."""
    rows = await session.execute(
        select(User, Membership.role, Membership.created_at)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.team_id == team_id)
        .order_by(User.name, User.id)
    )
    return [Member(user, role, since) for user, role, since in rows.tuples()]
