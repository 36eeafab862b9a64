# ruff: noqa: S608  (SQL text holds table and column names the store made; values are bound)
"""The embedded store's logs day tables: their layouts, and appends turned into their rows.

An append becomes one Arrow table per UTC day (`tables_of`), carrying the attribute columns
the day's table has or is given for it: columns are admitted when the append is taken, in the
order appends are journaled (`intended` layouts), so every row of a path that has a column
holds its value there. The tables wait in the journal and in staging, and `insert` moves many
of them into DuckDB in one transaction, adding the columns they bring, together with the
journal's applied sequence number: after a crash, the journal is replayed from exactly there.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable
from datetime import date

import duckdb
import pyarrow as pa

from watchpost.logs.batch import ATTRIBUTE_PREFIX, EventBatch
from watchpost.logs.columns import (
    Layout,
    arrow_table,
    column_type,
    day_of,
    lowered,
)
from watchpost.logs.sql import quote

EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
COLUMNS = {
    "logs": [
        ("id", "BIGINT"),
        ("source_id", "INTEGER"),
        ("team_id", "INTEGER"),
        ("dt", "TIMESTAMP"),
        ("severity", "VARCHAR"),
        ("service", "VARCHAR"),
        ("body", "VARCHAR"),
        # The two long texts of an event (its JSON, its search text): zstd over each block
        # of rows, not DuckDB's default dictionary + FSST, which compresses each value alone:
        # inserts take ≈ a third less CPU and a day table ≈ a third of the disk, and a word
        # search reads it as fast (bench/logs_column_compression_bench.py --long-texts).
        ("raw", "VARCHAR USING COMPRESSION zstd"),
        ("text", "VARCHAR USING COMPRESSION zstd"),
    ],
    "metrics": [
        ("source_id", "INTEGER"),
        ("team_id", "INTEGER"),
        ("dt", "TIMESTAMP"),
        ("name", "VARCHAR"),
        ("value", "DOUBLE"),
        ("tags", "MAP(VARCHAR, VARCHAR)"),
    ],
}
DDL = {kind: ", ".join(f"{n} {t}" for n, t in cols) for kind, cols in COLUMNS.items()}
APPLIED = "journal_applied"
"""The one-row table holding the journal's last sequence number inserted."""


def table(kind: str, day: date) -> str:
    return f"{kind}_{day:%Y%m%d}"


def day_from(number: int) -> date:
    return date.fromordinal(EPOCH_ORDINAL + number)


def _base_layout() -> Layout:
    return Layout.of(name for name, _ in COLUMNS["logs"])


class LogTables:
    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self.committed: dict[date, Layout] = {}
        """Each day table's attribute columns as DuckDB has them (read and set under lock)."""
        self._intended: dict[date, Layout] = {}
        """As they will be once every append taken so far is inserted."""

    def tables_of(self, batch: EventBatch) -> list[pa.Table]:
        """The batch as a table per day, admitting the columns new paths get."""
        tables = []
        for number, part in batch.by_day():
            day = day_from(number)
            held = part.paths()
            with self._lock:
                layout = self._intended.get(day)
                if layout is None:
                    known = self.committed.get(day)
                    layout = self._intended[day] = known.copy() if known else _base_layout()
                layout.admit(sorted(held.difference(layout.columns)))
                carried = {p: layout.columns[p] for p in held if p in layout.columns}
            tables.append(arrow_table(part, carried, number))
        return tables

    def forget(self, day: date) -> None:
        """The day's table was dropped."""
        with self._lock:
            self.committed.pop(day, None)
            self._intended.pop(day, None)

    def applied(self, con: duckdb.DuckDBPyConnection) -> int:
        """The journal's last sequence number inserted (the table made when missing)."""
        con.execute(f"CREATE TABLE IF NOT EXISTS {APPLIED} (seq BIGINT)")
        row = con.execute(f"SELECT max(seq) FROM {APPLIED}").fetchone()
        if row is None or row[0] is None:
            con.execute(f"INSERT INTO {APPLIED} VALUES (0)")
            return 0
        return int(row[0])

    def insert(
        self, con: duckdb.DuckDBPyConnection, records: Iterable[tuple[int, pa.Table]]
    ) -> tuple[set[date], int]:
        """The records' rows into their day tables and the last sequence number, in one
        transaction: the days written, and that number. Columns a table brings are added to
        its day table."""
        by_day: dict[int, list[pa.Table]] = defaultdict(list)
        last = 0
        for seq, part in records:
            by_day[day_of(part)].append(part)
            last = max(last, seq)
        written: dict[date, Layout] = {}
        con.execute("BEGIN TRANSACTION")
        try:
            for number in sorted(by_day):
                day = day_from(number)
                written[day] = self._insert_day(con, day, by_day[number])
            con.execute(f"UPDATE {APPLIED} SET seq = ?", [last])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        with self._lock:
            self.committed.update(written)
        return set(written), last

    def _insert_day(
        self, con: duckdb.DuckDBPyConnection, day: date, parts: list[pa.Table]
    ) -> Layout:
        name = table("logs", day)
        with self._lock:
            known = self.committed.get(day)
        if known is None:
            con.execute(f"CREATE TABLE IF NOT EXISTS {name} ({DDL['logs']})")
            known = _base_layout()
        layout = known.copy()
        incoming = (
            parts[0] if len(parts) == 1 else pa.concat_tables(parts, promote_options="default")
        )
        for column in incoming.column_names:
            if not column.startswith(ATTRIBUTE_PREFIX):
                continue
            path = column[len(ATTRIBUTE_PREFIX) :]
            if layout.columns.get(path) == column:
                continue
            if column.lower() in layout.taken:  # (a day dropped and begun again meanwhile)
                incoming = incoming.drop_columns([column])
                continue
            kind = column_type(incoming.column(column))
            con.execute(f"ALTER TABLE {name} ADD COLUMN {quote(column)} {kind}")
            layout.columns[path] = column
            layout.taken.add(column.lower())
        con.register("incoming", incoming)
        try:
            con.execute(f"INSERT INTO {name} BY NAME {lowered(incoming)}")
        finally:
            con.unregister("incoming")
        return layout

    def opened(self) -> None:
        """The committed layouts are read (and the journal replayed): appends start from them."""
        with self._lock:
            self._intended = {day: layout.copy() for day, layout in self.committed.items()}
