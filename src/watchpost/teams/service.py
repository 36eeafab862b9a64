"""Teams, tokens and users: what the CLI and the auth layer need."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from watchpost.crypto import hash_token, random_token
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


async def get_or_create_team(session: AsyncSession, *, name: str, now: datetime) -> Team:
    team = await session.scalar(select(Team).where(Team.name == name))
    if team is None:
        team = Team(name=name, created_at=now)
        session.add(team)
        await session.flush()
    return team


async def create_token(session: AsyncSession, *, team_name: str, now: datetime) -> str:
    """Mint a token for the team (created if needed); the plain token is returned only here."""
    team = await get_or_create_team(session, name=team_name, now=now)
    token = random_token(TOKEN_PREFIX)
    session.add(
        ApiToken(
            team_id=team.id,
            prefix=token[:SHOWN_PREFIX_LENGTH],
            token_hash=hash_token(token),
            created_at=now,
        )
    )
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
    select(_tokens.id, _tokens.team_id, _teams.name)
    .join_from(ApiToken.__table__, Team.__table__, _teams.id == _tokens.team_id)
    .where(_tokens.token_hash == bindparam("token_hash"), _tokens.revoked_at.is_(None))
)


async def authenticate(db: AsyncSession | AsyncConnection, token: str) -> Principal | None:
    """The principal of an active token, or None. One indexed lookup by hash."""
    row = (await db.execute(_AUTHENTICATE, {"token_hash": hash_token(token)})).first()
    if row is None:
        return None
    return Principal(team_id=row.team_id, team_name=row.name, token_id=row.id)


async def create_user(
    session: AsyncSession,
    *,
    team_name: str,
    email: str,
    name: str,
    now: datetime,
    role: str = "admin",
) -> User:
    """The person with that e-mail (created if new) added to the team (created if needed)
    with role."""
    from watchpost.people.accounts import PeopleError, add_person

    team = await get_or_create_team(session, name=team_name, now=now)
    try:
        user, _ = await add_person(session, team=team, email=email, name=name, role=role, now=now)
    except PeopleError as exc:
        raise TokenError(exc.message) from None
    return user


async def list_users(
    session: AsyncSession, *, team_name: str | None = None
) -> list[tuple[User, str, str]]:
    """Every membership: the person, the team's name and the role."""
    stmt = (
        select(User, Team.name, Membership.role)
        .join(Membership, Membership.user_id == User.id)
        .join(Team, Team.id == Membership.team_id)
        .order_by(User.id, Team.name)
    )
    if team_name is not None:
        stmt = stmt.where(Team.name == team_name)
    return [(user, name, role) for user, name, role in (await session.execute(stmt)).tuples()]
