# ruff: noqa: S608  (SQL text holds table names the store made and ints computed here; values are bound)
"""How many events of a search fall in each time slice, counted by the store's own engine
(one GROUP BY per day table on the embedded store, one on ClickHouse), never by reading the
events: `LogStore.count_by_slice` of both stores (the log explorer's histogram).

The WHERE clause is the one the stores' searches use (logs/sql.py `where`), so the counts are
of what a search lists. On the embedded store a term its SQL can only narrow (a field without
a column of its own, a word holding the separator) is checked row by row by searches; a count
cannot do that, so it then counts a superset and says it is approximate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import duckdb

from watchpost.logs.day_tables import table
from watchpost.logs.sql import where
from watchpost.logs.store import Search

if TYPE_CHECKING:
    from watchpost.logs.clickhouse import ClickHouseStore
    from watchpost.logs.embedded import EmbeddedStore


@dataclass(frozen=True)
class SliceCounts:
    counts: dict[int, int]
    """Slice index (0 is the slice starting at `start`) -> matching events; empty slices and
    slices before `start` are absent."""
    approximate: bool
    """A superset was counted (see the module's docstring)."""


def _whole(search: Search) -> Search:
    """The search without its cursor: a count is of the whole range."""
    return replace(search, before=None, after_id=None)


def micros(at: datetime) -> int:
    return round(at.astimezone(UTC).timestamp() * 1_000_000)


def _gathered(rows: list[tuple[int, int]], approximate: bool) -> SliceCounts:
    counts: dict[int, int] = {}
    for index, count in rows:
        if int(index) >= 0:
            counts[int(index)] = counts.get(int(index), 0) + int(count)
    return SliceCounts(counts, approximate)


async def on_embedded(
    store: EmbeddedStore, search: Search, start: datetime, width: timedelta
) -> SliceCounts:
    if not search.source_ids or search.since is None or search.until is None:
        return SliceCounts({}, False)
    await store._open()
    await store.flush()  # what was acknowledged is counted, as searches find it
    days = store._days_between("logs", search.since, search.until)
    start_us, width_us = micros(start), micros(start + width) - micros(start)
    statements: list[tuple[str, list[object]]] = []
    approximate = False
    for day in days:
        clause, query = where(_whole(search), "duckdb", store._columns(day))
        approximate = approximate or bool(query.verify)
        statements.append(
            (
                f"SELECT (epoch_us(dt) - {int(start_us)}) // {int(width_us)} AS b, count(*) "
                f"FROM {table('logs', day)} WHERE {clause} GROUP BY b",
                list(query.params),
            )
        )

    def run(cursor: duckdb.DuckDBPyConnection) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        for sql, params in statements:
            try:
                found += cursor.execute(sql, params).fetchall()
            except duckdb.CatalogException:  # the day was dropped meanwhile
                continue
        return found

    return _gathered(await store._read(run), approximate)


async def on_clickhouse(
    store: ClickHouseStore, search: Search, start: datetime, width: timedelta
) -> SliceCounts:
    if not search.source_ids:
        return SliceCounts({}, False)
    clause, query = where(_whole(search), "clickhouse")
    start_us, width_us = micros(start), micros(start + width) - micros(start)
    sql = (
        f"SELECT intDiv(toUnixTimestamp64Micro(dt) - {int(start_us)}, {int(width_us)}) AS b, "
        f"count() FROM {store.db}.logs WHERE {clause} GROUP BY b"
    )
    rows = await store._query(sql, query)
    return _gathered([(int(row[0]), int(row[1])) for row in rows], False)
