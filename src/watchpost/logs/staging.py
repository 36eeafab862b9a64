"""Appends on their way into DuckDB: acknowledged (in the journal), not yet inserted.

The journal hands each durable record here (`add`). A thread of its own moves what has
gathered into DuckDB in one insert (the `flush` it is given: a job on the store's writer
thread) once FLUSH_ROWS rows wait, once the oldest has waited FLUSH_AFTER_S, or when asked to
(`flushed`: a search reads what was acknowledged before it, retention and close see
everything). Appends wait while MAX_PENDING_ROWS rows are pending, so memory stays bounded
however fast events arrive. A flush that fails is retried; its records stay in the journal
until one succeeds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Final

import pyarrow as pa

from watchpost.logs.queue_thread import QueueThread, fail, resolve

log = logging.getLogger(__name__)

FLUSH_ROWS: Final = 122_880
"""DuckDB's row group: an insert of this many rows is written straight to the data file."""
FLUSH_AFTER_S: Final = 0.5
"""The longest an acknowledged event waits before it is inserted (searches do not wait)."""
MAX_PENDING_ROWS: Final = 2 * FLUSH_ROWS
RETRY_S: Final = 1.0

Record = tuple[int, pa.Table]
"""(journal sequence number, the table of one day's events)."""


def _done() -> Future[None]:
    future: Future[None] = Future()
    future.set_result(None)
    return future


class Staging(QueueThread):
    """`close` flushes what is pending, then stops the thread."""

    def __init__(self, flush: Callable[[list[Record]], Future[None]]) -> None:
        super().__init__("watchpost-logs-staging")
        self._flush = flush
        self._pending: list[Record] = []
        self._rows = 0
        self._since = 0.0
        self._waiters: list[Future[None]] = []
        self._busy = False

    @property
    def full(self) -> bool:
        return self._rows >= MAX_PENDING_ROWS

    def add(self, seq: int, table: pa.Table) -> None:
        """A record now durable in the journal (called in sequence order)."""
        with self._ready:
            if not self._pending:
                self._since = time.monotonic()
            self._pending.append((seq, table))
            self._rows += table.num_rows
            self._wake()

    def flushed(self) -> Future[None]:
        """Completed once everything added so far is in DuckDB (at once when it is)."""
        with self._ready:
            if (not self._pending and not self._busy) or self._thread is None:
                return _done()
            future: Future[None] = Future()
            self._waiters.append(future)
            self._ready.notify()
            return future

    def _due(self) -> bool:
        if self._stopping or self._waiters or self._rows >= FLUSH_ROWS:
            return True
        return bool(self._pending) and time.monotonic() - self._since >= FLUSH_AFTER_S

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._due():
                    left = FLUSH_AFTER_S - (time.monotonic() - self._since)
                    self._ready.wait(left if self._pending else None)
                taken, self._pending, self._rows = self._pending, [], 0
                waiting, self._waiters = self._waiters, []
                stopping = self._stopping
                self._busy = bool(taken)
            error = self._run_flush(taken)
            with self._ready:
                self._busy = False
            for future in waiting:
                if error is None:
                    resolve(future, None)
                else:
                    fail(future, error)
            if stopping and (error is not None or not self._pending):
                return
            if error is not None:
                with self._ready:
                    self._ready.wait(RETRY_S)

    def _run_flush(self, taken: list[Record]) -> BaseException | None:
        if not taken:
            return None
        try:
            self._flush(taken).result()
        except BaseException as exc:
            log.error("logs: moving %d records into the store failed: %s", len(taken), exc)
            with self._ready:  # they stay in the journal; tried again
                self._pending = taken + self._pending
                self._rows += sum(table.num_rows for _, table in taken)
                self._since = time.monotonic()
            return exc
        return None
