"""Choice lists of the team's objects that work at any size, without JavaScript.

A form offers at most `LIMIT` of a kind (monitors, heartbeats, groups …) by name. A small
GET "Find" form beside the list (`?find=text`) narrows what is offered in SQL: the name
or any other column given (a monitor's URL) contains the text, case-insensitively, as
plain text (`%`, `_` and the escape character match themselves: SQLAlchemy's
`icontains(autoescape=True)`). What is already chosen (a window's monitors, a step's
people) is always offered, first, so narrowing never drops a choice. When the list is cut,
`Picked.note` says so ("Showing the first 1,000 of 10,000 — type in Find to narrow"); the
count is read only then, so a small team's page costs one query a kind, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import ColumnElement, Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

LIMIT: Final = 1000
"""At most this many of a kind are offered (the chosen ones besides)."""
MAX_FIND: Final = 100
"""A find text is cut to this many characters."""
CHUNK: Final = 500
"""Chosen ids are read this many to a query (bound parameters stay few on every database)."""


def find_text(raw: object) -> str:
    """The text to find, as a query's `find` gives it: characters that cannot be typed
    (NUL, other control characters, lone surrogates) dropped, spaces trimmed, at most
    MAX_FIND characters."""
    text = "".join(c for c in str(raw or "") if c.isprintable())
    return text.strip()[:MAX_FIND].strip()


def matching(columns: Sequence[Any], find: str) -> ColumnElement[bool] | None:
    """Any of the columns contains the text (case-insensitive, `%` and `_` as themselves);
    None for an empty text."""
    if not find:
        return None
    return or_(*(column.icontains(find, autoescape=True) for column in columns))


@dataclass(frozen=True)
class Picked:
    """What a list offers: (key, name) pairs, the chosen ones not found first."""

    items: list[tuple[Any, str]]
    total: int
    """How many of the team's match the find text (all: with none)."""
    shown: int
    """How many of them are offered (the chosen ones besides)."""
    find: str

    @property
    def cut(self) -> bool:
        return self.shown < self.total

    @property
    def note(self) -> str:
        if not self.cut:
            return ""
        matched = " matching the text found" if self.find else ""
        return (
            f"Showing the first {self.shown:,} of {self.total:,}{matched} — type in Find to narrow"
        )


def ids_of(values: Iterable[object]) -> list[int]:
    """The values that are ids (digits, at most 18), as numbers; the others left out."""
    found = []
    for value in values:
        text = str(value)
        if text.isascii() and text.isdigit() and len(text) <= 18:
            found.append(int(text))
    return found


def of_team(model: Any, team_id: int, name: Any) -> Select[Any]:
    """The team's rows of model as (id, name), for `pick`."""
    return select(model.id, name).where(model.team_id == team_id)


def _named(rows: Iterable[Any]) -> list[tuple[Any, str]]:
    return [(key, str(label) if label else f"#{key}") for key, label in rows]


async def pick(
    db: AsyncSession,
    rows: Select[Any],
    key: Any,
    name: Any,
    *,
    searched: Sequence[Any] = (),
    find: str = "",
    chosen: Iterable[Any] = (),
    limit: int = LIMIT,
) -> Picked:
    """What `rows` (a select of key and name, the team's) offers by name: at most `limit`
    matching `find` in `searched` (the name when none given), and every one chosen (by key)."""
    test = matching(searched or (name,), find)
    narrowed = rows if test is None else rows.where(test)
    found = _named(await db.execute(narrowed.order_by(name, key).limit(limit + 1)))
    total = len(found)
    if total > limit:
        found = found[:limit]
        counted = select(func.count()).select_from(narrowed.subquery())
        total = int(await db.scalar(counted) or 0)
    seen = {item for item, _ in found}
    missing = [item for item in dict.fromkeys(chosen) if item not in seen]
    extra: list[tuple[Any, str]] = []
    for start in range(0, len(missing), CHUNK):
        part = rows.where(key.in_(missing[start : start + CHUNK])).order_by(name, key)
        extra += _named(await db.execute(part))
    return Picked(extra + found, total, len(found), find)
