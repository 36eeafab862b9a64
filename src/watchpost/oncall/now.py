"""Who is on call at a moment, and when that may change next.

At time t the people on call are those of the override events covering t (start ≤ t < end)
if there is one, else those of the regular events covering t. Events name people by e-mail;
an address that no longer names a member of the team names nobody.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.upsert import dialect_module
from watchpost.oncall.models import OnCallCalendar, OnCallEvent
from watchpost.teams.models import User, team_users

DEFAULT_NAME = "Primary"
"""The name a team's default calendar is made with."""


async def default_id(session: AsyncSession, team_id: int, *, now: datetime) -> int:
    """The team's default calendar, made now if it has none yet (INSERT … ON CONFLICT DO
    NOTHING on its unique key: two requests making it at once make one). Call in a write
    transaction."""
    stmt = select(OnCallCalendar.id).where(OnCallCalendar.default_of_team_id == team_id)
    found = await session.scalar(stmt)
    if found is not None:
        return found
    module = dialect_module(session.get_bind().dialect.name)
    values = {
        "team_id": team_id,
        "name": DEFAULT_NAME,
        "default_of_team_id": team_id,
        "on_call_user_ids": [],
        "created_at": now,
        "updated_at": now,
    }
    await session.execute(
        module.insert(OnCallCalendar)
        .values(values)
        .on_conflict_do_nothing(index_elements=["default_of_team_id"])
    )
    made = await session.scalar(stmt)
    assert made is not None
    return made


def _people(events: Iterable[tuple[list[str], bool]]) -> list[str]:
    """The addresses on call among the events covering a moment: the overrides' if any."""
    covering = list(events)
    chosen = [users for users, override in covering if override] or [users for users, _ in covering]
    return list(dict.fromkeys(email for users in chosen for email in users))


async def emails_on_call(
    session: AsyncSession, calendar_ids: Iterable[int], now: datetime
) -> dict[int, list[str]]:
    """The addresses on call at `now` in each calendar."""
    ids = list(calendar_ids)
    covering: dict[int, list[tuple[list[str], bool]]] = defaultdict(list)
    if ids:
        rows = await session.execute(
            select(OnCallEvent.calendar_id, OnCallEvent.users, OnCallEvent.override)
            .where(
                OnCallEvent.calendar_id.in_(ids),
                OnCallEvent.starts_at <= now,
                OnCallEvent.ends_at > now,
            )
            .order_by(OnCallEvent.starts_at, OnCallEvent.id)
        )
        for calendar_id, users, override in rows:
            covering[calendar_id].append((list(users), bool(override)))
    return {calendar_id: _people(covering[calendar_id]) for calendar_id in ids}


async def members(session: AsyncSession, team_id: int, emails: Iterable[str]) -> list[User]:
    """The team's members with these addresses (case aside), in the order given."""
    wanted = list(dict.fromkeys(email.lower() for email in emails))
    found: dict[str, User] = {}
    for first in range(0, len(wanted), 500):  # bounded statements, whatever was sent
        chunk = wanted[first : first + 500]
        found |= {
            user.email.lower(): user
            for user in await session.scalars(
                team_users(team_id).where(func.lower(User.email).in_(chunk))
            )
        }
    return [found[email] for email in wanted if email in found]


async def on_call_now(
    session: AsyncSession, team_id: int, calendar_id: int | None, now: datetime
) -> list[User]:
    """The people on call at `now` in the team's calendar (None: its default calendar, made
    if missing: call in a write transaction then); nobody for a calendar not the team's."""
    if calendar_id is None:
        calendar_id = await default_id(session, team_id, now=now)
    owned = await session.scalar(
        select(OnCallCalendar.id).where(
            OnCallCalendar.id == calendar_id, OnCallCalendar.team_id == team_id
        )
    )
    if owned is None:
        return []
    emails = (await emails_on_call(session, [calendar_id], now))[calendar_id]
    return await members(session, team_id, emails)


async def next_boundary(session: AsyncSession, calendar_id: int, now: datetime) -> datetime | None:
    """The first event start or end after `now`: when who is on call may change next."""
    starts = await session.scalar(
        select(func.min(OnCallEvent.starts_at)).where(
            OnCallEvent.calendar_id == calendar_id, OnCallEvent.starts_at > now
        )
    )
    ends = await session.scalar(
        select(func.min(OnCallEvent.ends_at)).where(
            OnCallEvent.calendar_id == calendar_id, OnCallEvent.ends_at > now
        )
    )
    found = [moment for moment in (starts, ends) if moment is not None]
    return min(found) if found else None
