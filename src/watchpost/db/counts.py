"""Sizes of teams' collections, kept by the database, and page anchors derived from them.

A list page needs the size of the whole collection (the `last` link names the last page) and
the first key of the page. At 100,000 sources of one team, `COUNT(*)` walks the whole
`(team_id, id)` index (≈ 1.8 ms of CPU on SQLite) and `OFFSET` walks it up to the page
(≈ 0.8 ms on average over all pages). Instead:

- `row_counts` holds, for each counted table and team, the number of rows and a version that
  changes with every insert and delete. Triggers keep it (migration 0012), so every writer
  keeps it right: the API, the CLI, a bulk insert, a cascade.
- `Anchors` keeps, in each process, every `every`-th key of a collection as of one version;
  a deep page starts from the nearest anchor at or before its offset, so at most `every - 1`
  index entries are skipped. A changed version rebuilds them on the next deep page.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
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


# ------------------------------------------------------------------------------ triggers

_SQLITE_START = "abs(random() % 1000000000000)"
_POSTGRES_START = "floor(random() * 1000000000000)::bigint"


def create_triggers(dialect: str, table: str) -> list[str]:
    """DDL that makes the database keep row_counts for table."""
    upsert = (
        "INSERT INTO row_counts (table_name, team_id, row_count, version) "
        "VALUES ('{table}', NEW.team_id, 1, {start}) "
        "ON CONFLICT (table_name, team_id) DO UPDATE "
        "SET row_count = row_counts.row_count + 1, version = row_counts.version + 1"
    )
    decrement = (
        "UPDATE row_counts SET row_count = row_count - 1, version = version + 1 "
        "WHERE table_name = '{table}' AND team_id = OLD.team_id"
    )
    if dialect == "sqlite":
        return [
            f"CREATE TRIGGER row_counts_{table}_insert AFTER INSERT ON {table} BEGIN "
            + upsert.format(table=table, start=_SQLITE_START)
            + "; END",
            f"CREATE TRIGGER row_counts_{table}_delete AFTER DELETE ON {table} BEGIN "
            + decrement.format(table=table)
            + "; END",
        ]
    function = f"row_counts_{table}"
    return [
        f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF TG_OP = 'INSERT' THEN "
        + upsert.format(table=table, start=_POSTGRES_START)
        + "; ELSE "
        + decrement.format(table=table)
        + "; END IF; RETURN NULL; END $$",
        f"CREATE TRIGGER row_counts_{table} AFTER INSERT OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {function}()",
    ]


def drop_triggers(dialect: str, table: str) -> list[str]:
    if dialect == "sqlite":
        return [
            f"DROP TRIGGER IF EXISTS row_counts_{table}_insert",
            f"DROP TRIGGER IF EXISTS row_counts_{table}_delete",
        ]
    return [
        f"DROP TRIGGER IF EXISTS row_counts_{table} ON {table}",
        f"DROP FUNCTION IF EXISTS row_counts_{table}()",
    ]


def backfill(table: str) -> str:
    """Counts for rows that existed before the triggers did."""
    # table is one of the names a migration lists, never input.
    select_counts = f"SELECT '{table}', team_id, count(*), 1 FROM {table} GROUP BY team_id"  # noqa: S608
    return "INSERT INTO row_counts (table_name, team_id, row_count, version) " + select_counts


def start_counting(execute: Callable[[str], object], dialect: str, tables: Iterable[str]) -> None:
    """What a migration runs to count tables: backfill their counts, then the triggers."""
    for table in tables:
        execute(backfill(table))
        for statement in create_triggers(dialect, table):
            execute(statement)


def stop_counting(execute: Callable[[str], object], dialect: str, tables: Iterable[str]) -> None:
    for table in tables:
        for statement in drop_triggers(dialect, table):
            execute(statement)
        execute(f"DELETE FROM row_counts WHERE table_name = '{table}'")  # noqa: S608


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
