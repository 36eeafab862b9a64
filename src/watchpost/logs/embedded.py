# ruff: noqa: S608  (SQL text holds table names made of dates and ints; values are bound)
"""The embedded logs store: DuckDB files under <data_dir>/logs/, nothing to run.

One database file (`logs.duckdb`, its write-ahead log beside it) holds a table per day and kind:
`logs_YYYYMMDD` and `metrics_YYYYMMDD` (the partitions; retention drops whole ones). The columns
follow ClickHouse's logs tables: dt, severity, service, body, attributes (a map), and raw, the
event as sent. One thread owns the connection and writes (logs/writer.py); searches run on
cursors of the same database in worker threads, a day at a time, newest day first, until the
limit is met. DuckDB lets one process open the file: the serving process owns it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import orjson

from watchpost.logs.events import LogEvent, MetricPoint, StoredEvent
from watchpost.logs.retention import expired_partitions
from watchpost.logs.sql import SEP, order_by, utc_naive, where
from watchpost.logs.store import MetricSearch, Search, capped
from watchpost.logs.writer import SerialWriter

T = TypeVar("T")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

MEMORY_LIMIT = "1GB"
COLUMNS = {
    "logs": [
        ("id", "BIGINT"),
        ("source_id", "INTEGER"),
        ("team_id", "INTEGER"),
        ("dt", "TIMESTAMP"),
        ("severity", "VARCHAR"),
        ("service", "VARCHAR"),
        ("body", "VARCHAR"),
        ("attributes", "MAP(VARCHAR, VARCHAR)"),
        ("raw", "VARCHAR"),
        # Every attribute as "\x1fkey=value" lower-cased, ending in \x1f: a plain string that a
        # word or field:value is first looked for in (a cheap scan), before the map is read.
        ("pairs", "VARCHAR"),
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
# read_json's columns={…}: the same names and types.
JSON_COLUMNS = {
    kind: "{" + ", ".join(f"{n}: '{t}'" for n, t in cols) + "}" for kind, cols in COLUMNS.items()
}


def table(kind: str, day: date) -> str:
    return f"{kind}_{day:%Y%m%d}"


def micros_to_dt(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


def _row(kind: str, item: Any) -> dict[str, Any]:
    if kind == "logs":
        event: LogEvent = item
        return {
            "id": event.id,
            "source_id": event.source_id,
            "team_id": event.team_id,
            "dt": utc_naive(event.dt),
            "severity": event.level,
            "service": event.service,
            "body": event.message,
            "attributes": dict(event.attributes),
            "raw": event.raw.decode("utf-8", "replace"),
            "pairs": pairs(event.attributes),
        }
    point: MetricPoint = item
    return {
        "source_id": point.source_id,
        "team_id": point.team_id,
        "dt": utc_naive(point.dt),
        "name": point.name,
        "value": point.value,
        "tags": dict(point.tags),
    }


def pairs(attributes: Mapping[str, str]) -> str:
    joined = "".join(f"{SEP}{key}={value}" for key, value in attributes.items())
    return f"{joined}{SEP}".lower()


def _day(item: LogEvent | MetricPoint) -> date:
    return item.dt.astimezone(UTC).date()


class EmbeddedStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "logs.duckdb"
        self._days: dict[str, set[date]] = {"logs": set(), "metrics": set()}
        self._lock = threading.Lock()
        self._cursors: queue.SimpleQueue[duckdb.DuckDBPyConnection] = queue.SimpleQueue()
        self._opened = False
        self._writer: SerialWriter[duckdb.DuckDBPyConnection] = SerialWriter(
            "watchpost-logs-writer", self._connect, self._write, lambda con: con.close()
        )

    # The writer's thread -------------------------------------------------------------

    def _connect(self) -> duckdb.DuckDBPyConnection:
        self.folder.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(self.path), config={"memory_limit": MEMORY_LIMIT})
        names = con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
        with self._lock:
            for (name,) in names:
                kind, _, stamp = str(name).rpartition("_")
                if kind in self._days and len(stamp) == 8 and stamp.isdigit():
                    self._days[kind].add(datetime.strptime(stamp, "%Y%m%d").date())
        return con

    def _write(self, con: duckdb.DuckDBPyConnection, kind: str, batch: list[Any]) -> None:
        by_day: dict[date, list[Any]] = {}
        for item in batch:
            by_day.setdefault(_day(item), []).append(item)
        staging = self.folder / f".{kind}-batch.ndjson"
        con.execute("BEGIN TRANSACTION")
        try:
            for day, items in sorted(by_day.items()):
                name = table(kind, day)
                con.execute(f"CREATE TABLE IF NOT EXISTS {name} ({DDL[kind]})")
                # DuckDB's executemany takes ≈ 500 rows/s; its JSON reader ≈ 100 times more.
                staging.write_bytes(b"\n".join(orjson.dumps(_row(kind, i)) for i in items))
                con.execute(
                    f"INSERT INTO {name} SELECT * FROM read_json(?, format = 'newline_delimited', "
                    f"columns = {JSON_COLUMNS[kind]})",
                    [str(staging)],
                )
            con.execute("COMMIT")  # DuckDB syncs its write-ahead log on commit
        except BaseException:
            con.execute("ROLLBACK")
            raise
        with self._lock:
            self._days[kind].update(by_day)

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

    async def search(self, search: Search) -> list[StoredEvent]:
        limit = capped(search.limit)
        if not search.source_ids or limit == 0:
            return []
        await self._open()
        days = self._days_between("logs", search.since, search.until)
        if not days:
            return []
        clause, query = where(search, "duckdb")
        order = order_by(search)

        def run(cursor: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
            select = "SELECT id, source_id, epoch_us(dt), raw FROM {} WHERE " + clause
            if search.after_id is not None:  # ids follow receipt, not dt: every day may hold some
                union = " UNION ALL ".join(select.format(table("logs", d)) for d in days)
                sql = f"SELECT * FROM ({union}) ORDER BY {order} LIMIT {limit}"
                return cursor.execute(sql, query.params).fetchall()
            rows: list[tuple[Any, ...]] = []
            for day in reversed(days) if search.newest_first else days:
                sql = f"{select.format(table('logs', day))} ORDER BY {order} LIMIT {limit - len(rows)}"
                try:
                    rows += cursor.execute(sql, query.params).fetchall()
                except duckdb.CatalogException:  # the day was dropped meanwhile
                    continue
                if len(rows) >= limit:
                    break
            return rows

        rows = await self._read(run)
        return [
            StoredEvent(id=r[0], source_id=r[1], dt=micros_to_dt(r[2]), raw=r[3].encode())
            for r in rows
        ]

    async def search_metrics(self, search: MetricSearch) -> list[MetricPoint]:
        limit = capped(search.limit)
        if not search.source_ids or limit == 0:
            return []
        await self._open()
        days = self._days_between("metrics", search.since, search.until)
        ids = ", ".join(str(int(s)) for s in search.source_ids)
        clauses, params = [f"source_id IN ({ids})"], []
        for sql, value in (
            ("name = ?", search.name),
            ("dt >= ?", search.since),
            ("dt < ?", search.until),
        ):
            if value is not None:
                clauses.append(sql)
                params.append(utc_naive(value) if isinstance(value, datetime) else value)

        def run(cursor: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
            rows: list[tuple[Any, ...]] = []
            for day in days:
                sql = (
                    "SELECT source_id, team_id, epoch_us(dt), name, value, tags FROM "
                    f"{table('metrics', day)} WHERE {' AND '.join(clauses)} "
                    f"ORDER BY dt, name LIMIT {limit - len(rows)}"
                )
                try:
                    rows += cursor.execute(sql, params).fetchall()
                except duckdb.CatalogException:
                    continue
                if len(rows) >= limit:
                    break
            return rows

        rows = await self._read(run)
        return [
            MetricPoint(
                source_id=r[0],
                team_id=r[1],
                dt=micros_to_dt(r[2]),
                name=r[3],
                value=r[4],
                tags=dict(r[5]),
            )
            for r in rows
        ]

    # Writes ----------------------------------------------------------------------------

    async def append(self, events: Sequence[LogEvent]) -> None:
        await self._writer.write("logs", events)

    async def append_metrics(self, points: Sequence[MetricPoint]) -> None:
        await self._writer.write("metrics", points)

    async def drop_expired(self, now: datetime, retention_days: Mapping[int, int]) -> int:
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
        await asyncio.to_thread(self._writer.close)
