"""Attribute columns of id-like values (mostly distinct, little repetition within them) are
stored uncompressed; other columns, and columns begun with too few values to tell, are left to
DuckDB's compression (logs/columns.column_type). Searches answer the same either way."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow as pa

from tests.factories.logs import log_event
from watchpost.logs.columns import LEAST_EVIDENCE, column_type
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.store import Field, Search

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
UNCOMPRESSED = "VARCHAR USING COMPRESSION uncompressed"


def test_ids_are_told_from_values_that_repeat() -> None:
    rng = random.Random(3)
    ids = [str(rng.randrange(100_000)) for _ in range(500)]
    traces = [f"{rng.getrandbits(128):032x}" for _ in range(500)]
    start = datetime(2026, 11, 20, tzinfo=UTC)
    times = [(start + timedelta(milliseconds=17 * n)).isoformat() for n in range(500)]
    levels = [rng.choice(["info", "warn", "error"]) for _ in range(500)]
    assert column_type(pa.array(ids)) == UNCOMPRESSED
    assert column_type(pa.array(traces)) == UNCOMPRESSED
    assert column_type(pa.array(times)) == "VARCHAR"  # distinct, but their pieces repeat
    assert column_type(pa.array(levels)) == "VARCHAR"
    assert column_type(pa.array([None] * 500 + ids[:10])) == "VARCHAR"  # too few to tell
    assert column_type(pa.array(ids[: LEAST_EVIDENCE - 1])) == "VARCHAR"
    assert column_type(pa.chunked_array([ids[:250], ids[250:]])) == UNCOMPRESSED


def compression(path: Path, column: str) -> set[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('logs_20261120') "
            "WHERE column_name = ? AND segment_type = 'VARCHAR'",
            [column],
        ).fetchall()
    finally:
        con.close()
    return {str(name) for (name,) in rows}


async def test_an_id_column_is_stored_uncompressed_and_searched_the_same(tmp_path: Path) -> None:
    rng = random.Random(5)
    events = [
        log_event(
            NOW - timedelta(seconds=n),
            f"request {n % 7}",
            user__id=str(rng.randrange(10**9)),
            http__method=rng.choice(["get", "post"]),
        )
        for n in range(5_000)
    ]
    store = EmbeddedStore(tmp_path)
    await store.append(events)
    wanted = events[1234]
    found = await store.search(Search([1], terms=[Field("user.id", wanted.attributes["user.id"])]))
    assert wanted.id in [e.id for e in found]
    found = await store.search(Search([1], terms=[Field("http.method", "POST")], limit=1000))
    posts = [e.id for e in events if e.attributes["http.method"] == "post"]  # newest first
    assert [e.id for e in found] == posts[:1000]
    await store.close()  # a checkpoint: the columns as DuckDB keeps them on disk

    assert compression(tmp_path / "logs.duckdb", "a.user.id") == {"Uncompressed"}
    assert "Uncompressed" not in compression(tmp_path / "logs.duckdb", "a.http.method")

    store = EmbeddedStore(tmp_path)
    try:
        found = await store.search(
            Search([1], terms=[Field("user.id", wanted.attributes["user.id"])])
        )
        assert wanted.id in [e.id for e in found]
    finally:
        await store.close()
