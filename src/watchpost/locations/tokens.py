"""Probe tokens: what a `watchpost probe` agent signs in with, bound to one location.

Made and revoked as API tokens are (teams/service.py), but they start with `wpp_` and live in
their own table: an API token is never a probe token, nor the reverse. Only the SHA-256 is
stored; `prefix` (the first 12 characters) names a token to people.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import hash_token, random_token
from watchpost.errors import NotFound
from watchpost.locations.models import Location, ProbeToken

TOKEN_PREFIX: Final = "wpp_"  # noqa: S105  (a public prefix, not a secret)
SHOWN_PREFIX_LENGTH: Final = 12
MAX_TOKEN_LENGTH: Final = 512
USE_RECORDED_EVERY: Final = timedelta(minutes=1)
"""`last_used_at` is written at most this often: not one write per agent request."""
PROBE_TOKEN: Final = "probe_token"  # noqa: S105  (a resource type, not a secret)
"""The API's type of a probe token."""


class ProbeTokenError(Exception):
    """A token operation that cannot be done, with a message for the operator."""


async def create_token(
    session: AsyncSession, *, location: Location, name: str | None, now: datetime
) -> str:
    """A new token of the location; the raw token, which exists only here."""
    _, token = await create_token_row(session, location=location, name=name, now=now)
    return token


async def create_token_row(
    session: AsyncSession, *, location: Location, name: str | None, now: datetime
) -> tuple[ProbeToken, str]:
    """A new token of the location: its row and the raw token."""
    token = random_token(TOKEN_PREFIX)
    row = ProbeToken(
        location_id=location.id,
        prefix=token[:SHOWN_PREFIX_LENGTH],
        token_hash=hash_token(token),
        name=(name or "").strip()[:255] or None,
        created_at=now,
    )
    session.add(row)
    await session.flush()
    return row, token


async def authenticate(session: AsyncSession, raw: str, now: datetime) -> Location | None:
    """The location of an active probe token, or None (unknown, revoked, not a probe token).
    Records its use (`last_used_at`) at most once a minute: call it in a write transaction."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > MAX_TOKEN_LENGTH:
        return None
    row = (
        await session.execute(
            select(ProbeToken.id, ProbeToken.last_used_at, Location)
            .join(Location, Location.id == ProbeToken.location_id)
            .where(ProbeToken.token_hash == hash_token(raw), ProbeToken.revoked_at.is_(None))
        )
    ).first()
    if row is None:
        return None
    token_id, last_used_at, location = row
    if last_used_at is None or now - last_used_at >= USE_RECORDED_EVERY:
        stale = now - USE_RECORDED_EVERY
        await session.execute(
            update(ProbeToken)
            .where(
                ProbeToken.id == token_id,
                or_(ProbeToken.last_used_at.is_(None), ProbeToken.last_used_at <= stale),
            )
            .values(last_used_at=now)
            .execution_options(synchronize_session=False)
        )
    found: Location = location
    return found


async def list_tokens(
    session: AsyncSession, *, location_id: int | None = None
) -> list[tuple[ProbeToken, Location]]:
    """Every probe token (or one location's), oldest first, each with its location."""
    stmt = select(ProbeToken, Location).join(Location, Location.id == ProbeToken.location_id)
    if location_id is not None:
        stmt = stmt.where(ProbeToken.location_id == location_id)
    rows = await session.execute(stmt.order_by(ProbeToken.id))
    return [(token, location) for token, location in rows.tuples()]


async def revoke(session: AsyncSession, *, prefix: str, now: datetime) -> ProbeToken:
    """Revoke the one active token that starts with prefix (its shown prefix, or the token)."""
    if len(prefix) < len(TOKEN_PREFIX) + 4 or not prefix.startswith(TOKEN_PREFIX):
        raise ProbeTokenError(
            f"give at least the first {len(TOKEN_PREFIX) + 4} characters of the probe token "
            f"(it starts with {TOKEN_PREFIX})"
        )
    shown = prefix[:SHOWN_PREFIX_LENGTH]
    matches = (
        await session.scalars(
            select(ProbeToken).where(
                ProbeToken.prefix.startswith(shown, autoescape=True),
                ProbeToken.revoked_at.is_(None),
            )
        )
    ).all()
    if not matches:
        raise ProbeTokenError(f"no active probe token starts with {shown!r}")
    if len(matches) > 1:
        raise ProbeTokenError(
            f"{len(matches)} active probe tokens start with {shown!r}; give more of it"
        )
    token = matches[0]
    token.revoked_at = now
    await session.flush()
    return token


async def get_token(session: AsyncSession, *, location_id: int, token_id: int) -> ProbeToken:
    """The location's token token_id, else a 404."""
    token = await session.scalar(
        select(ProbeToken).where(ProbeToken.id == token_id, ProbeToken.location_id == location_id)
    )
    if token is None:
        raise NotFound(PROBE_TOKEN, token_id)
    return token


async def revoke_token(session: AsyncSession, token: ProbeToken, *, now: datetime) -> None:
    """Revoke the token (already revoked: unchanged)."""
    if token.revoked_at is None:
        token.revoked_at = now
        await session.flush()
