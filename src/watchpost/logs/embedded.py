# ruff: noqa: S608  (SQL text holds table and column names the store made; values are bound)
"""The embedded logs store: DuckDB files under <data_dir>/logs/, nothing to run.

One database file (`logs.duckdb`, its write-ahead log beside it) holds a table per day and kind:
`logs_YYYYMMDD` and `metrics_YYYYMMDD` (the partitions; retention drops whole ones). A logs
table has the columns of ClickHouse's logs tables (dt, severity, service, body), `raw` (the
event as sent), `text` (the message and every attribute value, lower-cased, each between
\x1f separators: what a word is looked for in) and one column per attribute path,
`"a.<path>"` (up to MAX_ATTRIBUTE_COLUMNS a day, added as new paths arrive; uncompressed
when its first values are id-like, columns.column_type): the attributes stored the way
ClickHouse stores a JSON column's paths, so `field:value` reads one narrow column instead of
every event's attributes. A path without a column (past the limit, or differing only in
case from one that has one) is found through `text` and checked on the event (Query.verify).

Appends arrive as columns (logs/batch.py) and become an Arrow table a day (logs/day_tables.py);
an append returns once they are in the journal (`journal/`, logs/journal.py: fsynced, group
committed), and staging (logs/staging.py) moves what gathered into DuckDB in large inserts:
once FLUSH_ROWS rows wait, after FLUSH_AFTER_S, and before any search, retention or close,
so a search finds every event acknowledged before it. On open the journal is replayed past
the last sequence number DuckDB holds. One thread owns the connection and writes
(logs/writer.py); searches run on cursors of the same database in worker threads, a day at a
time, newest day first, until the limit is met. DuckDB lets one process open the file: the
serving process owns it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import orjson

from watchpost.logs.batch import EventBatch, from_micros
from watchpost.logs.columns import Layout, upgrade
from watchpost.logs.counting import SliceCounts, on_embedded
from watchpost.logs.day_tables import COLUMNS, DDL, LogTables, table
from watchpost.logs.events import LogEvent, MetricPoint, StoredEvent
from watchpost.logs.journal import Journal
from watchpost.logs.parsing import flatten
from watchpost.logs.query_language import matches
from watchpost.logs.result_rows import event_columns, metric_columns, metric_point, stored_event
from watchpost.logs.retention import expired_partitions
from watchpost.logs.sql import Query, metric_where, order_by, utc_naive, where
from watchpost.logs.staging import MAX_PENDING_ROWS, Record, Staging
from watchpost.logs.store import MetricSearch, Search, capped
from watchpost.logs.writer import SerialWriter

T = TypeVar("T")

MAX_CHECKED = 20_000
"""The most rows one statement reads for terms checked on the event itself."""
# read_json's columns={…}: the same names and types (metrics arrive as NDJSON).
JSON_COLUMNS = {
    kind: "{" + ", ".join(f"{n}: '{t}'" for n, t in cols) + "}" for kind, cols in COLUMNS.items()
}


def _metric_row(point: MetricPoint) -> dict[str, Any]:
    return {
        "source_id": point.source_id,
        "team_id": point.team_id,
        "dt": utc_naive(point.dt),
        "name": point.name,
        "value": point.value,
        "tags": dict(point.tags),
    }


class EmbeddedStore:
    def __init__(self, folder: Path, memory_mb: int = 1024) -> None:
        self.folder = folder
        self.memory_mb = memory_mb
        """DuckDB's memory limit (open_store: WATCHPOST_LOGS_MEMORY_LIMIT_MB)."""
        self.path = folder / "logs.duckdb"
        self._days: dict[str, set[date]] = {"logs": set(), "metrics": set()}
        self._lock = threading.Lock()
        self._tables = LogTables(self._lock)
        self._cursors: queue.SimpleQueue[duckdb.DuckDBPyConnection] = queue.SimpleQueue()
        self._opened = False
        self._writer: SerialWriter[duckdb.DuckDBPyConnection] = SerialWriter(
            "watchpost-logs-writer", self._connect, self._write, lambda con: con.close()
        )
        self._staging = Staging(lambda records: self._writer.submit(partial(self._insert, records)))
        self._journal = Journal(folder / "journal", self._staging.add)

    @property
    def _layouts(self) -> dict[date, Layout]:
        """The attribute columns of each logs day table, as committed."""
        return self._tables.committed

    # The writer's thread -------------------------------------------------------------

    def _connect(self) -> duckdb.DuckDBPyConnection:
        self.folder.mkdir(parents=True, exist_ok=True)
        # Every read of the store orders its rows (ORDER BY): an insert need not keep their
        # order, which halves its CPU (≈ 18 → 9.7 µs a row, docs/benchmarks.md)
        config: dict[str, str | bool | int | float | list[str]] = {
            "memory_limit": f"{self.memory_mb}MiB",
            "preserve_insertion_order": False,
        }
        con = duckdb.connect(str(self.path), config=config)
        found: dict[str, list[str]] = {}
        for name, column in con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
        ).fetchall():
            found.setdefault(str(name), []).append(str(column))
        for name, columns in found.items():
            kind, _, stamp = name.rpartition("_")
            if kind not in self._days or len(stamp) != 8 or not stamp.isdigit():
                continue
            day = datetime.strptime(stamp, "%Y%m%d").date()
            if kind == "logs":
                columns = upgrade(con, name, columns)
                self._layouts[day] = Layout.of(columns)
            with self._lock:
                self._days[kind].add(day)
        replay = self._journal.recover(self._tables.applied(con))
        while replay:  # what was acknowledged and not yet inserted when the process ended
            taken = rows = 0
            while taken < len(replay) and rows < MAX_PENDING_ROWS:
                rows += replay[taken][1].num_rows
                taken += 1
            self._insert(replay[:taken], con)
            replay = replay[taken:]
        self._tables.opened()
        return con

    def _insert(self, records: list[Record], con: duckdb.DuckDBPyConnection) -> None:
        days, last = self._tables.insert(con, records)
        with self._lock:
            self._days["logs"].update(days)
        self._journal.release(last)

    def _write(self, con: duckdb.DuckDBPyConnection, kind: str, chunks: list[Any]) -> None:
        """Metric points (logs go through the journal and staging)."""
        con.execute("BEGIN TRANSACTION")
        try:
            days = self._write_metrics(con, [p for chunk in chunks for p in chunk])
            con.execute("COMMIT")  # DuckDB syncs its write-ahead log on commit
        except BaseException:
            con.execute("ROLLBACK")
            raise
        with self._lock:
            self._days[kind].update(days)

    def _write_metrics(
        self, con: duckdb.DuckDBPyConnection, points: list[MetricPoint]
    ) -> set[date]:
        by_day: dict[date, list[MetricPoint]] = {}
        for point in points:
            by_day.setdefault(point.dt.astimezone(UTC).date(), []).append(point)
        staging = self.folder / ".metrics-batch.ndjson"
        for day, items in sorted(by_day.items()):
            name = table("metrics", day)
            con.execute(f"CREATE TABLE IF NOT EXISTS {name} ({DDL['metrics']})")
            # DuckDB's executemany takes ≈ 500 rows/s; its JSON reader ≈ 100 times more.
            staging.write_bytes(b"\n".join(orjson.dumps(_metric_row(p)) for p in items))
            con.execute(
                f"INSERT INTO {name} SELECT * FROM read_json(?, format = 'newline_delimited', "
                f"columns = {JSON_COLUMNS['metrics']})",
                [str(staging)],
            )
        return set(by_day)

    # Reads -----------------------------------------------------------------------------

    async def _open(self) -> None:
        if not self._opened:
            await self._writer.call(lambda con: None)
            self._opened = True

    async def _read(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        await self._open()
        try:
            cursor = self._cursors.get_nowait()
        except queue.Empty:
            cursor = await self._writer.call(lambda con: con.cursor())
        try:
            return await asyncio.to_thread(work, cursor)
        finally:
            self._cursors.put(cursor)

    def _days_between(
        self, kind: str, since: datetime | None, until: datetime | None
    ) -> list[date]:
        with self._lock:
            days = sorted(self._days[kind])
        first = since.astimezone(UTC).date() if since else date.min
        last = (until.astimezone(UTC) - timedelta(microseconds=1)).date() if until else date.max
        return [day for day in days if first <= day <= last]

    def _columns(self, day: date) -> dict[str, str]:
        with self._lock:
            layout = self._layouts.get(day)
            return dict(layout.columns) if layout is not None else {}

    def _select(self, search: Search, days: Sequence[date], limit: int) -> tuple[str, Query]:
        """One statement for the search over these days (their union when more than one)."""
        query = Query("duckdb")
        clauses = []
        for day in days:
            clause, query = where(search, "duckdb", self._columns(day), query)
            clauses.append((table("logs", day), clause))
        columns = event_columns("duckdb") + (", body" if query.verify else "")
        selects = [f"SELECT {columns} FROM {name} WHERE {clause}" for name, clause in clauses]
        order = order_by(search)
        if len(selects) == 1:
            return f"{selects[0]} ORDER BY {order} LIMIT {limit}", query
        return (
            f"SELECT * FROM ({' UNION ALL '.join(selects)}) ORDER BY {order} LIMIT {limit}",
            query,
        )

    def _find(
        self, cursor: duckdb.DuckDBPyConnection, search: Search, days: Sequence[date], limit: int
    ) -> list[tuple[Any, ...]]:
        """At most `limit` rows of the search over these days, each checked for the terms
        the SQL could only narrow (their rows read on, past those that fail, until the limit
        is met or nothing is left)."""
        found: list[tuple[Any, ...]] = []
        wanted = limit
        while len(found) < limit:
            sql, query = self._select(search, days, wanted)
            rows = cursor.execute(sql, query.params).fetchall()
            if not query.verify:
                return found + rows
            found += [row for row in rows if _holds(query, row)]
            if len(rows) < wanted:
                break
            wanted = min(wanted * 4, MAX_CHECKED)  # few rows held: read on in larger steps
            last = rows[-1]
            if search.after_id is not None:
                search = dataclasses.replace(search, after_id=last[0])
            else:
                search = dataclasses.replace(search, before=(from_micros(last[2]), last[0]))
        return found[:limit]

    async def search(self, search: Search) -> list[StoredEvent]:
        limit = capped(search.limit)
        if not search.source_ids or limit == 0:
            return []
        await self._open()
        await self.flush()  # what was acknowledged before the search is found by it
        days = self._days_between("logs", search.since, search.until)
        if not days:
            return []

        def run(cursor: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
            if search.after_id is not None:  # ids follow receipt, not dt: every day may hold some
                return self._find(cursor, search, days, limit)
            rows: list[tuple[Any, ...]] = []
            for day in reversed(days) if search.newest_first else days:
                try:
                    rows += self._find(cursor, search, [day], limit - len(rows))
                except duckdb.CatalogException:  # the day was dropped meanwhile
                    continue
                if len(rows) >= limit:
                    break
            return rows

        return [stored_event(row) for row in await self._read(run)]

    async def search_metrics(self, search: MetricSearch) -> list[MetricPoint]:
        limit = capped(search.limit)
        if not search.source_ids or limit == 0:
            return []
        await self._open()
        days = self._days_between("metrics", search.since, search.until)
        clause, query = metric_where(search, "duckdb")

        def run(cursor: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
            rows: list[tuple[Any, ...]] = []
            for day in days:
                sql = (
                    f"SELECT {metric_columns('duckdb')} FROM {table('metrics', day)} "
                    f"WHERE {clause} ORDER BY dt, name LIMIT {limit - len(rows)}"
                )
                try:
                    rows += cursor.execute(sql, query.params).fetchall()
                except duckdb.CatalogException:
                    continue
                if len(rows) >= limit:
                    break
            return rows

        return [metric_point(row) for row in await self._read(run)]

    # Writes ----------------------------------------------------------------------------

    async def append(self, events: Sequence[LogEvent]) -> None:
        await self.append_batch(EventBatch.of(events))

    async def append_batch(self, batch: EventBatch) -> None:
        """Returns once the batch is in the journal (durable); searches find it from then."""
        if not len(batch):
            return
        await self._open()
        while self._staging.full:  # DuckDB is behind: wait for it, memory stays bounded
            await asyncio.wrap_future(self._staging.flushed())
        pending = [self._journal.append(part) for part in self._tables.tables_of(batch)]
        for future in pending:
            await asyncio.wrap_future(future)

    async def flush(self) -> None:
        """Returns once every event acknowledged so far is in DuckDB."""
        await asyncio.wrap_future(self._staging.flushed())

    async def append_metrics(self, points: Sequence[MetricPoint]) -> None:
        await self._writer.write("metrics", points)

    async def count_by_slice(
        self, search: Search, start: datetime, width: timedelta
    ) -> SliceCounts:
        return await on_embedded(self, search, start, width)

    async def drop_expired(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        await self._open()
        await self.flush()
        return await self._writer.call(lambda con: self._drop(con, "logs", now, retention_days))

    async def drop_expired_metrics(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        return await self._writer.call(lambda con: self._drop(con, "metrics", now, retention_days))

    def _drop(
        self, con: duckdb.DuckDBPyConnection, kind: str, now: datetime, retention: Mapping[int, int]
    ) -> int:
        with self._lock:
            days = sorted(self._days[kind])
        dropped = 0
        for day in days:
            name = table(kind, day)
            counts = dict(
                con.execute(f"SELECT source_id, count(*) FROM {name} GROUP BY source_id").fetchall()
            )
            whole, sources = expired_partitions(day, counts, now, retention)
            if whole:
                con.execute(f"DROP TABLE {name}")
                with self._lock:
                    self._days[kind].discard(day)
                if kind == "logs":
                    self._tables.forget(day)
                dropped += sum(counts.values())
            elif sources:
                ids = ", ".join(str(int(s)) for s in sources)
                con.execute(f"DELETE FROM {name} WHERE source_id IN ({ids})")
                dropped += sum(counts[s] for s in sources)
        if dropped:
            con.execute("CHECKPOINT")  # the freed blocks become reusable
        return dropped

    async def close(self) -> None:
        while True:
            try:
                self._cursors.get_nowait().close()
            except queue.Empty:
                break
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        self._journal.close()  # what is queued is written and staged,
        self._staging.close()  # then inserted,
        self._writer.close()  # then the connection is closed


def _holds(query: Query, row: tuple[Any, ...]) -> bool:
    """Whether the terms the SQL could only narrow hold for a row (raw at 3, body at 4)."""
    return matches(query.verify, row[4], flatten(orjson.loads(row[3])))
