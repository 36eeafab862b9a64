"""Sizes of teams' collections, kept by the database, and page anchors derived from them.

A list page needs the size of the whole collection (the `last` link names the last page) and
the first key of the page. At 100,000 sources of one team, `COUNT(*)` walks the whole
`(team_id, id)` index (≈ 1.8 ms of CPU on SQLite) and `OFFSET` walks it up to the page
(≈ 0.8 ms on average over all pages). Instead:

- `row_counts` holds, for each counted table and team, the number of rows and a version that
  changes with every insert and delete. Triggers keep it (migrations 0012 and 0013 create
  them with `migrations/shapes.start_counting`), so every writer keeps it right: the API,
  the CLI, a bulk insert, a cascade.
- `Anchors` keeps, in each process, every `every`-th key of a collection as of one version;
  a deep page starts from the nearest anchor at or before its offset, so at most `every - 1`
  index entries are skipped. A changed version rebuilds them on the next deep page.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    ForeignKey,
    String,
    Table,
    bindparam,
    func,
    select,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdType

COUNTED_TABLES = ("sources", "monitors", "heartbeats")
"""Tables whose rows row_counts counts per team (each has a team_id column)."""


class RowCount(Base):
    __tablename__ = "row_counts"

    table_name: Mapped[str] = mapped_column(String(63), primary_key=True)
    team_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    row_count: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(BigInteger)
    """Changes with every insert and delete; starts at a random value, so a table emptied and
    filled again (a restore, a test database) never repeats an earlier version."""


# ------------------------------------------------------------------------- reading them

_counts = RowCount.__table__.c
_READ_COUNT = select(_counts.row_count, _counts.version).where(
    _counts.table_name == bindparam("counted_table"), _counts.team_id == bindparam("counted_team")
)


class Anchors:
    """Every `every`-th key of recently paged collections, as of one version each (LRU)."""

    def __init__(self, *, every: int = 64, min_offset: int = 4096, capacity: int = 256) -> None:
        self.every = every
        self.min_offset = min_offset
        """Pages starting before this offset use a plain OFFSET: it is cheap there."""
        self.capacity = capacity
        self._keys: OrderedDict[tuple[str, int], tuple[int, list[Any]]] = OrderedDict()

    async def seek(
        self, session: AsyncSession, whole: Collection, key: ColumnElement[Any], offset: int
    ) -> tuple[Any | None, int]:
        """(first key to read from, or None for the start; rows still to skip after it)."""
        if offset < self.min_offset:
            return None, offset
        name = (whole.table.name, whole.team_id)
        cached = self._keys.get(name)
        if cached is None or cached[0] != whole.version:
            # Numbered in SQL, so only the anchors come back (100,000 keys through the ORM
            # layer cost ≈ 200 ms; this query ≈ 35 ms on SQLite).
            numbered = (
                select(key.label("key"), func.row_number().over(order_by=key).label("n"))
                .where(whole.table.c.team_id == whole.team_id)
                .subquery()
            )
            anchors = select(numbered.c.key).where((numbered.c.n - 1) % self.every == 0)
            every_nth = (await session.scalars(anchors.order_by(numbered.c.key))).all()
            cached = (whole.version, list(every_nth))
            self._keys[name] = cached
            while len(self._keys) > self.capacity:
                self._keys.popitem(last=False)
        self._keys.move_to_end(name)
        keys = cached[1]
        index = min(offset // self.every, len(keys) - 1)
        if index < 0:
            return None, offset
        return keys[index], offset - index * self.every


@dataclass(frozen=True)
class Collection:
    """All of one team's rows of a counted table, with their count and version."""

    table: Table
    team_id: int
    size: int
    version: int
    anchors: Anchors

    @classmethod
    async def read(
        cls, session: AsyncSession, model: type[Base], team_id: int, anchors: Anchors
    ) -> Collection:
        """The team's rows of model's table, which must be one of COUNTED_TABLES."""
        table = model.__table__
        if not isinstance(table, Table) or table.name not in COUNTED_TABLES:
            raise ValueError(f"{model.__name__} has no row_counts triggers")
        params = {"counted_table": table.name, "counted_team": team_id}
        row = (await session.execute(_READ_COUNT, params)).first()
        size, version = (0, 0) if row is None else (row.row_count, row.version)
        return cls(table=table, team_id=team_id, size=size, version=version, anchors=anchors)
