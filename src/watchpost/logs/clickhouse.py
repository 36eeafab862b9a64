# ruff: noqa: S608  (SQL text holds the database name (validated), ints and dates; values are bound)
"""The ClickHouse logs store (WATCHPOST_LOGS_URL=clickhouse://…), over HTTP with clickhouse-connect.

Two MergeTree tables in the URL's database, partitioned by day (toDate(dt)) so retention drops
whole partitions: `logs` (id, source_id, team_id, dt, severity, service, body, attributes as a
Map, raw) ordered by (source_id, dt, id), and `metrics` (source_id, team_id, dt, name, value,
tags) ordered by (source_id, name, dt). Both are created when missing, with fsync after insert:
an acknowledged insert is on disk. Writes go through one thread (logs/writer.py) that batches
concurrent appends into one INSERT; searches run in worker threads on the same client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import clickhouse_connect
from clickhouse_connect.driver.client import Client

from watchpost.logs import counting
from watchpost.logs.batch import EventBatch, from_micros
from watchpost.logs.events import LogEvent, MetricPoint, StoredEvent
from watchpost.logs.result_rows import event_columns, metric_columns, metric_point, stored_event
from watchpost.logs.retention import expired_partitions
from watchpost.logs.sql import Query, metric_where, order_by, where
from watchpost.logs.store import MetricSearch, Search, capped
from watchpost.logs.writer import SerialWriter
from watchpost.setting_values import ClickHouseServer, parse_clickhouse_url

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SETTINGS = "SETTINGS fsync_after_insert = 1, fsync_part_directory = 1"
LOG_COLUMNS = [
    "id",
    "source_id",
    "team_id",
    "dt",
    "severity",
    "service",
    "body",
    "attributes",
    "raw",
]
METRIC_COLUMNS = ["source_id", "team_id", "dt", "name", "value", "tags"]


def tables(db: str) -> list[str]:
    return [
        f"CREATE TABLE IF NOT EXISTS {db}.logs (id UInt64, source_id UInt32, team_id UInt32, "
        "dt DateTime64(6, 'UTC'), severity LowCardinality(String), "
        "service LowCardinality(String), body String, "
        "attributes Map(LowCardinality(String), String), raw String CODEC(ZSTD(1)), "
        # ids ascend with receipt: the live tail's `id > N` skips all but the newest granules
        "INDEX id_range id TYPE minmax GRANULARITY 1) "
        f"ENGINE = MergeTree PARTITION BY toDate(dt) ORDER BY (source_id, dt, id) {SETTINGS}",
        f"CREATE TABLE IF NOT EXISTS {db}.metrics (source_id UInt32, team_id UInt32, "
        "dt DateTime64(6, 'UTC'), name LowCardinality(String), value Float64, "
        "tags Map(LowCardinality(String), String)) "
        f"ENGINE = MergeTree PARTITION BY toDate(dt) ORDER BY (source_id, name, dt) {SETTINGS}",
    ]


class ClickHouseStore:
    def __init__(self, server: ClickHouseServer) -> None:
        self.server = server
        self.db = server.database
        self._client: Client | None = None
        self._writer: SerialWriter[Client] = SerialWriter(
            "watchpost-logs-clickhouse", self._connect, self._write, lambda client: client.close()
        )

    @classmethod
    def from_url(cls, url: str) -> ClickHouseStore:
        return cls(parse_clickhouse_url(url))

    def _connect(self) -> Client:
        client = clickhouse_connect.get_client(
            host=self.server.host,
            port=self.server.port,
            username=self.server.username,
            password=self.server.password,
            secure=self.server.secure,
            autogenerate_session_id=False,  # one client, used from several threads
        )
        client.command(f"CREATE DATABASE IF NOT EXISTS {self.db}")
        for ddl in tables(self.db):
            client.command(ddl)
        self._client = client
        return client

    def _write(self, client: Client, kind: str, chunks: list[Any]) -> None:
        if kind == "logs":
            batch = EventBatch.concat(chunks)
            data: list[Sequence[Any]] = [
                batch.ids,
                batch.source_ids,
                batch.team_ids,
                [from_micros(at) for at in batch.micros],
                batch.levels,
                batch.services,
                batch.messages,
                batch.attributes,
                batch.raws,
            ]
            client.insert(
                "logs", data, column_names=LOG_COLUMNS, database=self.db, column_oriented=True
            )
        else:
            points = [
                [p.source_id, p.team_id, p.dt.astimezone(UTC), p.name, p.value, dict(p.tags)]
                for chunk in chunks
                for p in chunk
            ]
            client.insert("metrics", points, column_names=METRIC_COLUMNS, database=self.db)

    async def _query(self, sql: str, query: Query) -> list[Sequence[Any]]:
        if self._client is None:
            await self._writer.call(lambda client: None)
        client = self._client
        assert client is not None
        result = await asyncio.to_thread(client.query, sql, parameters=query.bound())
        return list(result.result_rows)

    async def _select(
        self, table: str, columns: str, found: tuple[str, Query], order: str, limit: int
    ) -> list[Sequence[Any]]:
        """Up to `limit` rows of `columns` from `table`, those `found` (a WHERE clause and its
        query) matches, in `order`."""
        clause, query = found
        sql = (
            f"SELECT {columns} FROM {self.db}.{table} WHERE {clause} ORDER BY {order} LIMIT {limit}"
        )
        return await self._query(sql, query)

    async def search(self, search: Search) -> list[StoredEvent]:
        limit = capped(search.limit)
        if not search.source_ids or limit == 0:
            return []
        found = where(search, "clickhouse")
        rows = await self._select(
            "logs", event_columns("clickhouse"), found, order_by(search), limit
        )
        return [stored_event(row) for row in rows]

    async def search_metrics(self, search: MetricSearch) -> list[MetricPoint]:
        limit = capped(search.limit)
        if not search.source_ids or limit == 0:
            return []
        found = metric_where(search, "clickhouse")
        rows = await self._select("metrics", metric_columns("clickhouse"), found, "dt, name", limit)
        return [metric_point(row) for row in rows]

    async def append(self, events: Sequence[LogEvent]) -> None:
        await self.append_batch(EventBatch.of(events))

    async def append_batch(self, batch: EventBatch) -> None:
        await self._writer.write("logs", batch)

    async def append_metrics(self, points: Sequence[MetricPoint]) -> None:
        await self._writer.write("metrics", points)

    async def drop_expired(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        return await self._writer.call(lambda c: self._drop(c, "logs", now, retention_days))

    async def drop_expired_metrics(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        return await self._writer.call(lambda c: self._drop(c, "metrics", now, retention_days))

    def _drop(self, client: Client, table: str, now: datetime, retention: Mapping[int, int]) -> int:
        rows = client.query(
            f"SELECT toYYYYMMDD(dt) AS day, source_id, count() FROM {self.db}.{table} "
            "GROUP BY day, source_id"
        ).result_rows
        by_day: dict[int, dict[int, int]] = {}
        for day, source_id, count in rows:
            by_day.setdefault(int(day), {})[int(source_id)] = int(count)
        dropped = 0
        for stamp, counts in sorted(by_day.items()):
            day = date(stamp // 10000, stamp // 100 % 100, stamp % 100)
            whole, sources = expired_partitions(day, counts, now, retention)
            if whole:
                client.command(f"ALTER TABLE {self.db}.{table} DROP PARTITION ID '{stamp}'")
                dropped += sum(counts.values())
            elif sources:
                ids = ", ".join(str(int(s)) for s in sources)
                client.command(
                    f"DELETE FROM {self.db}.{table} WHERE toYYYYMMDD(dt) = {stamp} "
                    f"AND source_id IN ({ids})"
                )
                dropped += sum(counts[s] for s in sources)
        return dropped

    async def count_by_slice(
        self, search: Search, start: datetime, width: timedelta
    ) -> counting.SliceCounts:
        """LogStore.count_by_slice."""
        return await counting.on_clickhouse(self, search, start, width)

    async def close(self) -> None:
        await asyncio.to_thread(self._writer.close)
        self._client = None
