"""People and their teams: create a person or add them to a team, roles, passwords and
one-time links (first password, reset, invitation)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import hash_token, random_token
from watchpost.people import passwords
from watchpost.people.models import ConsoleSession, OneTimeLink
from watchpost.people.roles import ROLES, Role
from watchpost.teams.models import Membership, Team, User

LINK_TTL: Final = timedelta(hours=24)
LINK_PREFIX: Final = "wpl_"
PURPOSES: Final = ("password", "reset", "invite")
"""password: set the first password (watchpost user create); reset: forgot it; invite: join a
team (setting a password too when the person has none)."""


class PeopleError(Exception):
    """Something about people that cannot be done, with a message for a person."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class TeamRole:
    team_id: int
    team_name: str
    role: str


def normal_email(email: str) -> str:
    return email.strip().lower()


def email_problem(email: str) -> str | None:
    text = normal_email(email)
    local, at, domain = text.partition("@")
    if not (at and local and "." in domain and len(text) <= 320) or any(c.isspace() for c in text):
        return "Enter an e-mail address like name@example.com"
    return None


async def by_email(db: AsyncSession, email: str) -> User | None:
    found: User | None = await db.scalar(select(User).where(User.email == normal_email(email)))
    return found


async def teams_of(db: AsyncSession, user_id: int) -> list[TeamRole]:
    """The person's teams and roles, by team name."""
    rows = await db.execute(
        select(Team.id, Team.name, Membership.role)
        .join(Membership, Membership.team_id == Team.id)
        .where(Membership.user_id == user_id)
        .order_by(Team.name)
    )
    return [TeamRole(team_id, name, role) for team_id, name, role in rows.tuples()]


async def role_in(db: AsyncSession, *, user_id: int, team_id: int) -> str | None:
    role: str | None = await db.scalar(
        select(Membership.role).where(Membership.user_id == user_id, Membership.team_id == team_id)
    )
    return role


async def add_person(
    db: AsyncSession, *, team: Team, email: str, name: str, role: str, now: datetime
) -> tuple[User, bool]:
    """The person with that e-mail (created if new) as a member of team with role; whether
    the person was created. A person already in the team is an error."""
    if role not in ROLES:
        raise PeopleError(f"role must be one of {', '.join(ROLES)}", field="role")
    problem = email_problem(email)
    if problem:
        raise PeopleError(problem, field="email")
    user = await by_email(db, email)
    created = user is None
    if user is None:
        if not name.strip():
            raise PeopleError("Enter the person's name", field="name")
        user = User(email=normal_email(email), name=name.strip(), created_at=now)
        db.add(user)
        await db.flush()
    elif await role_in(db, user_id=user.id, team_id=team.id) is not None:
        raise PeopleError(f"{user.email} is already a member of {team.name}", field="email")
    db.add(Membership(team_id=team.id, user_id=user.id, role=role, created_at=now))
    await db.flush()
    return user, created


async def owners(db: AsyncSession, team_id: int) -> int:
    found = await db.scalar(
        select(func.count())
        .select_from(Membership)
        .where(Membership.team_id == team_id, Membership.role == Role.OWNER)
    )
    return int(found or 0)


async def set_role(db: AsyncSession, *, team_id: int, user_id: int, role: str) -> None:
    """Changes a member's role; the team's last owner stays an owner."""
    membership = await db.scalar(
        select(Membership).where(Membership.team_id == team_id, Membership.user_id == user_id)
    )
    if membership is None:
        raise PeopleError("No such member")
    if role not in ROLES:
        raise PeopleError(f"role must be one of {', '.join(ROLES)}", field="role")
    if membership.role == Role.OWNER and role != Role.OWNER and await owners(db, team_id) <= 1:
        raise PeopleError("A team keeps at least one owner", field="role")
    membership.role = role
    await db.flush()


async def remove_member(db: AsyncSession, *, team_id: int, user_id: int) -> None:
    """Takes a person out of a team (their sessions there end); the last owner stays."""
    membership = await db.scalar(
        select(Membership).where(Membership.team_id == team_id, Membership.user_id == user_id)
    )
    if membership is None:
        raise PeopleError("No such member")
    if membership.role == Role.OWNER and await owners(db, team_id) <= 1:
        raise PeopleError("A team keeps at least one owner")
    await db.delete(membership)
    sessions = await db.scalars(
        select(ConsoleSession).where(
            ConsoleSession.user_id == user_id, ConsoleSession.team_id == team_id
        )
    )
    for session in sessions:
        session.team_id = None
    await db.flush()


async def set_password(db: AsyncSession, user: User, password: str, now: datetime) -> None:
    """Sets a new password (checked first) and ends every session of the person."""
    problem = passwords.problem(password)
    if problem:
        raise PeopleError(problem, field="password")
    user.password_hash = await passwords.hash_password(password)
    user.password_changed_at = now
    from watchpost.people.sessions import revoke_all  # sessions imports this module

    await revoke_all(db, user_id=user.id, now=now)
    await db.flush()


async def make_link(
    db: AsyncSession,
    *,
    user: User,
    purpose: str,
    now: datetime,
    team_id: int | None = None,
    role: str | None = None,
) -> str:
    """A one-time link's token (valid LINK_TTL); only its hash is stored. Earlier unused
    links of the same purpose stop working."""
    if purpose not in PURPOSES:
        raise ValueError(purpose)
    earlier = await db.scalars(
        select(OneTimeLink).where(
            OneTimeLink.user_id == user.id,
            OneTimeLink.purpose == purpose,
            OneTimeLink.used_at.is_(None),
        )
    )
    for link in earlier:
        if purpose != "invite" or link.team_id == team_id:
            link.used_at = now
    token = random_token(LINK_PREFIX)
    db.add(
        OneTimeLink(
            user_id=user.id,
            purpose=purpose,
            token_hash=hash_token(token),
            team_id=team_id,
            role=role,
            created_at=now,
            expires_at=now + LINK_TTL,
        )
    )
    await db.flush()
    return token


async def open_link(db: AsyncSession, token: str, now: datetime) -> tuple[OneTimeLink, User]:
    """The unused, unexpired link of token and its person, else PeopleError."""
    link = await db.scalar(
        select(OneTimeLink).where(OneTimeLink.token_hash == hash_token(token.strip()[:200]))
    )
    if link is None or link.used_at is not None or link.expires_at <= now:
        raise PeopleError("This link has expired or was already used. Ask for a new one.")
    user = await db.get(User, link.user_id)
    if user is None:
        raise PeopleError("This link has expired or was already used. Ask for a new one.")
    return link, user


async def use_link(
    db: AsyncSession, token: str, *, password: str | None, now: datetime
) -> tuple[User, int | None]:
    """Uses a link: sets the password (required unless an invitation of a person who has
    one), joins the invited team; returns the person and the team joined."""
    link, user = await open_link(db, token, now)
    if password is not None or link.purpose != "invite" or user.password_hash is None:
        await set_password(db, user, password or "", now)
    joined = None
    if link.purpose == "invite" and link.team_id is not None:
        if await role_in(db, user_id=user.id, team_id=link.team_id) is None:
            db.add(
                Membership(
                    team_id=link.team_id,
                    user_id=user.id,
                    role=link.role or Role.VIEWER,
                    created_at=now,
                )
            )
        joined = link.team_id
    link.used_at = now
    await db.flush()
    return user, joined
