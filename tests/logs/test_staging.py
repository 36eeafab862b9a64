"""Staging (logs/staging.py) and the embedded store's journal replay: acknowledged events reach
DuckDB in large inserts, a failed insert is tried again, and what the journal holds past
DuckDB's applied number is inserted when the store opens, once."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pytest

from tests.factories.logs import log_event
from watchpost.logs import staging
from watchpost.logs.batch import EventBatch
from watchpost.logs.day_tables import LogTables
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.journal import Journal
from watchpost.logs.staging import Record, Staging
from watchpost.logs.store import Search, Word

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _rows(count: int) -> pa.Table:
    return pa.table({"n": pa.array(range(count), pa.int64())})


def _done(error: BaseException | None = None) -> Future[None]:
    future: Future[None] = Future()
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)
    return future


def test_a_failed_insert_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staging, "RETRY_S", 0.01)
    calls: list[list[int]] = []
    done: list[int] = []

    def flush(records: list[Record]) -> Future[None]:
        calls.append([seq for seq, _ in records])
        if len(calls) == 1:
            return _done(OSError("No space left on device"))
        done.extend(seq for seq, _ in records)
        return _done()

    stage = Staging(flush)
    stage.add(1, _rows(3))
    with pytest.raises(OSError, match="No space"):
        stage.flushed().result(timeout=30)
    stage.add(2, _rows(1))
    stage.flushed().result(timeout=30)
    stage.close()
    assert calls[0] == [1]
    assert done == [1, 2]  # each inserted once, in order


def test_enough_rows_are_inserted_without_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staging, "FLUSH_ROWS", 4)
    monkeypatch.setattr(staging, "FLUSH_AFTER_S", 3600.0)
    inserted = threading.Event()
    seen: list[int] = []

    def flush(records: list[Record]) -> Future[None]:
        seen.extend(seq for seq, _ in records)
        inserted.set()
        return _done()

    stage = Staging(flush)
    stage.add(1, _rows(2))
    assert not inserted.wait(0.05)  # 2 rows wait for more (or for the hour)
    stage.add(2, _rows(2))
    assert inserted.wait(30)
    stage.close()
    assert seen == [1, 2]


def test_a_few_rows_are_inserted_once_they_have_waited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staging, "FLUSH_AFTER_S", 0.01)
    inserted = threading.Event()

    def flush(records: list[Record]) -> Future[None]:
        inserted.set()
        return _done()

    stage = Staging(flush)
    stage.add(1, _rows(1))  # far fewer than FLUSH_ROWS, and nobody asks
    assert inserted.wait(30)
    stage.close()


async def test_the_journal_is_replayed_when_the_store_opens(tmp_path: Path) -> None:
    events = [log_event(NOW, f"replayed {n}", user__id=str(n)) for n in range(5)]
    tables = LogTables(threading.Lock()).tables_of(EventBatch.of(events))
    journal = Journal(tmp_path / "journal", lambda seq, table: None)
    journal.recover(0)  # acknowledged, then the process ended before any insert
    for table in tables:
        journal.append(table).result(timeout=30)
    journal.close()

    for _ in range(2):  # inserted once: the second open finds nothing left to replay
        store = EmbeddedStore(tmp_path)
        try:
            found = await store.search(Search([1], terms=[Word("replayed")], limit=100))
            assert sorted(e.id for e in found) == sorted(e.id for e in events)
        finally:
            await store.close()
    assert list((tmp_path / "journal").glob("*.journal")) == []


def test_a_caller_that_stopped_waiting_does_not_stop_the_inserts() -> None:
    """A search or append that stopped waiting for a flush (its request was cancelled)
    leaves the staging thread running for everyone else."""
    done: list[int] = []

    def flush(records: list[Record]) -> Future[None]:
        done.extend(seq for seq, _ in records)
        return _done()

    stage = Staging(flush)
    with stage._ready:  # the thread cannot take the waiters until this block ends
        stage.add(1, _rows(1))
        given_up = stage.flushed()
        assert given_up.cancel()
    stage.add(2, _rows(1))
    stage.flushed().result(timeout=30)
    stage.close()
    assert done == [1, 2]
