"""Who is on call over the coming weeks, for the on-call pages: the events of a window read
in one query, cut at every start and end, and each piece's people chosen by the rule of
oncall/now.py (its `_people`: the overrides' people if any override covers the moment, else
the regular events'), so the pages and the escalations never disagree.

A calendar's page shows DAYS_SHOWN days from today, or from the day its `?from=YYYY-MM-DD`
names (`position`: Earlier / Later move by DAYS_SHOWN, at most REACH days from today either
way; a value that is no such day falls back to today with a message)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from typing import Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost import times
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallEvent
from watchpost.teams.models import User

DAYS_SHOWN: Final = 28
REACH: Final = 3653
"""The calendar page is shown from at most this many days (ten years) before or after today."""
_DAY: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
MAX_EVENTS: Final = 20_000
"""At most this many events are read for one page (a rotation of hourly shifts over four
weeks is 672)."""


@dataclass(frozen=True)
class Position:
    """The first day a calendar's page shows, and the days Earlier and Later go to."""

    first: date
    today: date
    problem: str = ""

    def _within(self, day: date) -> date | None:
        low, high = self.today - timedelta(days=REACH), self.today + timedelta(days=REACH)
        nearest = min(max(day, low), high)
        return None if nearest == self.first else nearest

    @property
    def earlier(self) -> date | None:
        return self._within(self.first - timedelta(days=DAYS_SHOWN))

    @property
    def later(self) -> date | None:
        return self._within(self.first + timedelta(days=DAYS_SHOWN))

    @property
    def query(self) -> str:
        """`from=…` for a URL, empty when the page starts today."""
        return "" if self.first == self.today else f"from={self.first.isoformat()}"


def position(raw: object, today: date) -> Position:
    """The position a `from` value names: a day YYYY-MM-DD within REACH days of today;
    today when empty, and today with a problem to show when not such a day."""
    text = str(raw or "").strip()
    if not text:
        return Position(today, today)
    example = today.isoformat()
    try:
        if not _DAY.fullmatch(text):
            raise ValueError(text)
        day = times.read_day(text)
    except ValueError:
        return Position(
            today, today, f"Give the day as YYYY-MM-DD, such as {example}: shown from today."
        )
    if abs((day - today).days) > REACH:
        return Position(
            today, today, "Choose a day at most ten years before or after today: shown from today."
        )
    return Position(day, today)


@dataclass(frozen=True)
class Piece:
    """From `starts` until `ends`, these addresses are on call (`override`: by an override)."""

    starts: datetime
    ends: datetime
    emails: tuple[str, ...]
    override: bool


@dataclass
class Day:
    day: date
    pieces: list[Piece] = field(default_factory=list)


async def events_between(
    db: AsyncSession, calendar_ids: Sequence[int], starts: datetime, ends: datetime
) -> dict[int, list[OnCallEvent]]:
    """The calendars' events overlapping [starts, ends), by calendar, earliest first."""
    found: dict[int, list[OnCallEvent]] = defaultdict(list)
    if not calendar_ids:
        return found
    rows = await db.scalars(
        select(OnCallEvent)
        .where(
            OnCallEvent.calendar_id.in_(list(calendar_ids)),
            OnCallEvent.ends_at > starts,
            OnCallEvent.starts_at < ends,
        )
        .order_by(OnCallEvent.starts_at, OnCallEvent.id)
        .limit(MAX_EVENTS)
    )
    for event in rows:
        found[event.calendar_id].append(event)
    return found


def pieces(events: Sequence[OnCallEvent], starts: datetime, ends: datetime) -> list[Piece]:
    """[starts, ends) cut where who is on call may change; neighbours alike are merged;
    pieces with nobody on call are left out."""
    marks = {starts, ends}
    for event in events:
        marks |= {m for m in (event.starts_at, event.ends_at) if starts < m < ends}
    ordered = sorted(marks)
    found: list[Piece] = []
    for begin, end in pairwise(ordered):
        covering = [
            (list(e.users), bool(e.override))
            for e in events
            if e.starts_at <= begin and e.ends_at > begin
        ]
        emails = tuple(on_call._people(covering))
        override = any(flag for _, flag in covering)
        if not emails:
            continue
        last = found[-1] if found else None
        if last and last.ends == begin and last.emails == emails and last.override == override:
            found[-1] = Piece(last.starts, end, emails, override)
        else:
            found.append(Piece(begin, end, emails, override))
    return found


def by_day(found: Iterable[Piece], first: date, days: int) -> list[Day]:
    """The pieces cut at each UTC midnight, day by day from `first`."""
    listed = [Day(first + timedelta(days=n)) for n in range(days)]
    for piece in found:
        for day in listed:
            start = datetime.combine(day.day, datetime.min.time(), tzinfo=UTC)
            end = start + timedelta(days=1)
            if piece.starts < end and piece.ends > start:
                cut = Piece(
                    max(piece.starts, start), min(piece.ends, end), piece.emails, piece.override
                )
                day.pieces.append(cut)
    return listed


def now_and_next(found: Sequence[Piece], now: datetime) -> tuple[Piece | None, Piece | None]:
    """The piece running at `now` and the next one with other people (or none)."""
    current = next((p for p in found if p.starts <= now < p.ends), None)
    after = now if current is None else current.ends
    return current, next((p for p in found if p.starts >= after), None)


async def people(db: AsyncSession, team_id: int, emails: Iterable[str]) -> dict[str, User]:
    """The team's members among the addresses, by lower-cased address (one query a 500)."""
    return {u.email.lower(): u for u in await on_call.members(db, team_id, emails)}
