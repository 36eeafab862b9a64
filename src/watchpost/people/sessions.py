"""Console sessions: server-side rows behind an opaque cookie, so each can be listed and
ended. A session ends when revoked, after `session_idle_timeout` unused, or at its absolute
lifetime (`session_lifetime`), whichever comes first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import hash_token, random_token
from watchpost.people.models import ConsoleSession
from watchpost.teams.models import User

COOKIE_PREFIX: Final = "wps_"
TOUCH_EVERY: Final = timedelta(minutes=1)
"""last_seen_at is written at most this often: a page view is otherwise only reads."""


@dataclass(frozen=True)
class Lifetimes:
    idle: timedelta
    absolute: timedelta


async def start(
    db: AsyncSession,
    *,
    user: User,
    team_id: int | None,
    second_factor_done: bool,
    client: str,
    now: datetime,
    lifetimes: Lifetimes,
) -> str:
    """A new session of user; the cookie's value is returned, only its hash kept."""
    token = random_token(COOKIE_PREFIX)
    db.add(
        ConsoleSession(
            user_id=user.id,
            token_hash=hash_token(token),
            team_id=team_id,
            second_factor_done=second_factor_done,
            client=client[:255],
            created_at=now,
            last_seen_at=now,
            expires_at=now + lifetimes.absolute,
        )
    )
    await db.flush()
    return token


def alive(session: ConsoleSession, now: datetime, lifetimes: Lifetimes) -> bool:
    return (
        session.revoked_at is None
        and session.expires_at > now
        and session.last_seen_at + lifetimes.idle > now
    )


async def find(
    db: AsyncSession, token: str, *, now: datetime, lifetimes: Lifetimes
) -> tuple[ConsoleSession, User] | None:
    """The live session of a cookie and its person, or None."""
    if not token.startswith(COOKIE_PREFIX) or len(token) > 128:
        return None
    row = (
        await db.execute(
            select(ConsoleSession, User)
            .join(User, User.id == ConsoleSession.user_id)
            .where(ConsoleSession.token_hash == hash_token(token))
        )
    ).first()
    if row is None or not alive(row[0], now, lifetimes):
        return None
    return row[0], row[1]


def needs_touch(session: ConsoleSession, now: datetime) -> bool:
    return now - session.last_seen_at >= TOUCH_EVERY


async def touch(db: AsyncSession, session_id: int, now: datetime) -> None:
    await db.execute(
        update(ConsoleSession).where(ConsoleSession.id == session_id).values(last_seen_at=now)
    )


async def revoke(db: AsyncSession, *, session_id: int, user_id: int, now: datetime) -> bool:
    """Ends one of the person's sessions; whether there was one to end."""
    result = await db.execute(
        update(ConsoleSession)
        .where(
            ConsoleSession.id == session_id,
            ConsoleSession.user_id == user_id,
            ConsoleSession.revoked_at.is_(None),
        )
        .values(revoked_at=now)
    )
    return bool(getattr(result, "rowcount", 0))


async def revoke_all(
    db: AsyncSession, *, user_id: int, now: datetime, keep: int | None = None
) -> None:
    """Ends every session of the person (but `keep`)."""
    stmt = update(ConsoleSession).where(
        ConsoleSession.user_id == user_id, ConsoleSession.revoked_at.is_(None)
    )
    if keep is not None:
        stmt = stmt.where(ConsoleSession.id != keep)
    await db.execute(stmt.values(revoked_at=now))


async def listed(
    db: AsyncSession, *, user_id: int, now: datetime, lifetimes: Lifetimes
) -> list[ConsoleSession]:
    """The person's live sessions, newest first."""
    found = await db.scalars(
        select(ConsoleSession)
        .where(ConsoleSession.user_id == user_id, ConsoleSession.revoked_at.is_(None))
        .order_by(ConsoleSession.id.desc())
        .limit(100)
    )
    return [session for session in found if alive(session, now, lifetimes)]
