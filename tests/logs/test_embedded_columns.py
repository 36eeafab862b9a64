"""The embedded store's attribute columns (logs/columns.py): a path with a column of its own is
searched there; a path without one (past the limit, or differing only in case from one that
has one) is narrowed through `text` and checked on the event, with the same answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import orjson
import pytest

from tests.factories.logs import log_event
from watchpost.logs import columns
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.events import new_event_ids
from watchpost.logs.store import Field, Search, Word

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def table_columns(path: Path) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = 'logs_20261120' ORDER BY ordinal_position"
        ).fetchall()
    finally:
        con.close()
    return [str(name) for (name,) in rows]


async def test_paths_get_columns_that_outlive_the_process(tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path)
    first = log_event(NOW, "one", user__id="42")
    await store.append([first])
    second = log_event(NOW + timedelta(seconds=1), "two", user__id="43", http__status="500")
    await store.append([second])
    await store.close()
    names = table_columns(tmp_path / "logs.duckdb")
    assert {"a.user.id", "a.http.status", "a.message", "a.level", "text"} <= set(names)

    store = EmbeddedStore(tmp_path)
    try:
        found = await store.search(Search([1], terms=[Field("user.id", "42")]))
        assert [e.id for e in found] == [first.id]
        found = await store.search(Search([1], terms=[Field("http.status", "5*")]))
        assert [e.id for e in found] == [second.id]
        found = await store.search(Search([1], terms=[Field("http.status", "500", negated=True)]))
        assert [e.id for e in found] == [first.id]
    finally:
        await store.close()


async def test_paths_past_the_limit_are_found_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(columns, "MAX_ATTRIBUTE_COLUMNS", 2)  # level and message only
    store = EmbeddedStore(tmp_path)
    try:
        match = log_event(NOW, "a", user__id="42")
        # newer decoys holding "42" whole under another path: the narrowing finds them, the
        # check on the event turns them away, and the search reads on past them
        decoys = [
            log_event(NOW + timedelta(seconds=i), "b", order__id="42", user__id="7")
            for i in range(1, 6)
        ]
        prefix = log_event(NOW - timedelta(seconds=1), "c", user__id="4200")
        await store.append([match, *decoys, prefix])
        assert "a.user.id" not in table_columns_of(store)

        found = await store.search(Search([1], terms=[Field("user.id", "42")], limit=1))
        assert [e.id for e in found] == [match.id]
        found = await store.search(Search([1], terms=[Field("user.id", "42*")]))
        assert [e.id for e in found] == [match.id, prefix.id]
        found = await store.search(Search([1], terms=[Field("user.id", "7", negated=True)]))
        assert [e.id for e in found] == [match.id, prefix.id]
        tail = await store.search(Search([1], terms=[Field("order.id", "42")], after_id=0, limit=2))
        assert [e.id for e in tail] == [d.id for d in decoys[:2]]
    finally:
        await store.close()


def table_columns_of(store: EmbeddedStore) -> set[str]:
    return {column for layout in store._layouts.values() for column in layout.columns}


async def test_paths_differing_only_in_case(tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path)
    try:
        lower = log_event(NOW, "a", user__id="1")
        upper = log_event(NOW + timedelta(seconds=1), "b", User__id="2")
        await store.append([lower, upper])
        found = await store.search(Search([1], terms=[Field("User.id", "2")]))
        assert [e.id for e in found] == [upper.id]
        found = await store.search(Search([1], terms=[Field("user.id", "2")]))
        assert found == []
        found = await store.search(Search([1], terms=[Field("user.id", "1")]))
        assert [e.id for e in found] == [lower.id]
    finally:
        await store.close()


async def test_a_separator_inside_a_value_does_not_join_values(tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path)
    try:
        odd = log_event(NOW, "start\x1fend", user__id="ab")
        await store.append([odd])
        assert [e.id for e in await store.search(Search([1], terms=[Word("start end")]))] == [
            odd.id
        ]
        assert await store.search(Search([1], terms=[Word("end\x1fab")])) == []
    finally:
        await store.close()


async def test_a_day_table_of_the_first_layout_is_upgraded(tmp_path: Path) -> None:
    """Tables written before attribute columns (a map and a `pairs` string) keep their events
    and answer the same searches."""
    con = duckdb.connect(str(tmp_path / "logs.duckdb"))
    con.execute(
        "CREATE TABLE logs_20261120 (id BIGINT, source_id INTEGER, team_id INTEGER, "
        "dt TIMESTAMP, severity VARCHAR, service VARCHAR, body VARCHAR, "
        "attributes MAP(VARCHAR, VARCHAR), raw VARCHAR, pairs VARCHAR)"
    )
    old_id = new_event_ids(1)[0]
    raw = orjson.dumps({"message": "Disk Full", "user": {"id": "42"}}).decode()
    con.execute(
        "INSERT INTO logs_20261120 VALUES (?, 1, 1, ?, '', '', 'Disk Full', "
        "MAP {'message': 'Disk Full', 'user.id': '42'}, ?, 'x')",
        [old_id, NOW.replace(tzinfo=None), raw],
    )
    con.close()

    store = EmbeddedStore(tmp_path)
    try:
        new = log_event(NOW + timedelta(seconds=1), "disk ok", user__id="42")
        await store.append([new])
        found = await store.search(Search([1], terms=[Word("disk")]))
        assert [e.id for e in found] == [new.id, old_id]
        assert found[1].raw == raw.encode()
        found = await store.search(Search([1], terms=[Field("user.id", "42"), Word("full")]))
        assert [e.id for e in found] == [old_id]
    finally:
        await store.close()
    names = set(table_columns(tmp_path / "logs.duckdb"))
    assert not {"attributes", "pairs", "a.user.id"} & names  # its old rows have no columns
