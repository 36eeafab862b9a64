"""The embedded logs store's journal: what an append acknowledged, on disk before it is in DuckDB.

Appends are written here, fsynced in groups, and acknowledged; the store moves them into DuckDB
later, many at once (logs/staging.py). DuckDB writes a large insert's row groups straight to
its data file, so one insert of 100,000 rows costs a fraction of a hundred inserts of 1,000,
each copied through its write-ahead log and committed.

The journal is a folder of segment files (`<first sequence number>.journal`), each a run of
records: a header (magic, sequence number, payload length, CRC-32 of the payload) and an
Arrow IPC stream of one table. Sequence numbers ascend across segments. One thread writes:
it takes every record queued, writes them, calls fdatasync once, hands each to `on_durable`
in order and only then completes the appends (group commit). On open, `recover` reads the
records after the store's last applied number; a torn record at the end (written, never
acknowledged: the process died before its fdatasync returned) is cut off. Segments whose
every record the store has applied are deleted (`release`).
"""

from __future__ import annotations

import os
import struct
import zlib
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pyarrow as pa

from watchpost.logs.queue_thread import QueueThread, fail, resolve

MAGIC: Final = b"WPJ1"
HEADER: Final = struct.Struct("<4sQQI")  # magic, sequence number, payload bytes, CRC-32
SUFFIX: Final = ".journal"
SEGMENT_BYTES: Final = 64 * 1024 * 1024
"""A segment is closed (a new one begun) once it holds this much."""


class JournalClosed(RuntimeError):
    pass


def _payload(table: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    buffer: pa.Buffer = sink.getvalue()
    return buffer


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data).cast("B")
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass
class _Segment:
    path: Path
    last: int
    """The sequence number of its last record (0 while it has none)."""


def read_segment(path: Path) -> tuple[list[tuple[int, pa.Table]], int]:
    """The whole records of a segment file, and the bytes they take (where a torn record,
    if any, begins)."""
    data = path.read_bytes()
    records: list[tuple[int, pa.Table]] = []
    at = 0
    while at + HEADER.size <= len(data):
        magic, seq, size, crc = HEADER.unpack_from(data, at)
        start, end = at + HEADER.size, at + HEADER.size + size
        if magic != MAGIC or end > len(data):
            break
        payload = memoryview(data)[start:end]
        if zlib.crc32(payload) != crc:
            break
        records.append((seq, pa.ipc.open_stream(pa.py_buffer(payload)).read_all()))
        at = end
    return records, at


class Journal(QueueThread):
    """Group-committed records of Arrow tables, numbered from 1; `close` writes what is
    queued, then stops the thread."""

    def __init__(
        self,
        folder: Path,
        on_durable: Callable[[int, pa.Table], None],
        segment_bytes: int = SEGMENT_BYTES,
    ) -> None:
        super().__init__("watchpost-logs-journal")
        self.folder = folder
        self._on_durable = on_durable
        self._segment_bytes = segment_bytes
        self._queue: deque[tuple[int, pa.Table, Future[int]]] = deque()
        self._next = 1
        self._closed: list[_Segment] = []
        self._current: _Segment | None = None
        self._fd: int | None = None
        self._size = 0

    # Opening -----------------------------------------------------------------------------

    def recover(self, applied: int) -> list[tuple[int, pa.Table]]:
        """The records after `applied` (the store's last applied number), oldest first; cuts
        a torn tail, deletes segments that hold nothing after `applied`, and begins a new
        segment for what comes. Called once, before the first append."""
        self.folder.mkdir(parents=True, exist_ok=True)
        found: list[tuple[int, pa.Table]] = []
        last = applied
        for path in sorted(self.folder.glob(f"*{SUFFIX}"), key=lambda p: int(p.stem)):
            records, whole = read_segment(path)
            if whole < path.stat().st_size:  # a torn record: never acknowledged
                with path.open("r+b") as file:
                    file.truncate(whole)
                    os.fsync(file.fileno())
            newest = records[-1][0] if records else 0
            last = max(last, newest)
            if newest <= applied:
                path.unlink()
                continue
            self._closed.append(_Segment(path, newest))
            found += [(seq, table) for seq, table in records if seq > applied]
        self._next = last + 1
        return found

    # Appending ---------------------------------------------------------------------------

    def append(self, table: pa.Table) -> Future[int]:
        """Queue a record; the future gets its sequence number once it is on disk (and
        on_durable has been told)."""
        future: Future[int] = Future()
        with self._ready:
            if self._stopping:
                raise JournalClosed("the logs journal is closed")
            self._queue.append((self._next, table, future))
            self._next += 1
            self._wake()
        return future

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._stopping:
                    self._ready.wait()
                if not self._queue:
                    break
                taken = list(self._queue)
                self._queue.clear()
            self._write(taken)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, taken: list[tuple[int, pa.Table, Future[int]]]) -> None:
        try:
            fd = self._open_segment(taken[0][0])
            start = self._size
            try:
                for seq, table, _ in taken:
                    payload = _payload(table)
                    _write_all(fd, HEADER.pack(MAGIC, seq, payload.size, zlib.crc32(payload)))
                    _write_all(fd, memoryview(payload))
                    self._size += HEADER.size + payload.size
                os.fdatasync(fd)
            except BaseException:
                with suppress(OSError):  # what was written is no record: cut it off
                    os.ftruncate(fd, start)
                self._size = start
                raise
        except BaseException as exc:
            for _, _, future in taken:
                fail(future, exc)
            return
        assert self._current is not None
        self._current.last = taken[-1][0]
        for seq, table, future in taken:
            self._on_durable(seq, table)
            resolve(future, seq)
        if self._size >= self._segment_bytes:
            self._close_segment()

    def _open_segment(self, first: int) -> int:
        if self._fd is not None:
            return self._fd
        path = self.folder / f"{first:020d}{SUFFIX}"
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        _sync_folder(self.folder)
        self._current = _Segment(path, 0)
        self._size = 0
        return self._fd

    def _close_segment(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        self._fd = None
        with self._ready:
            if self._current is not None and self._current.last:
                self._closed.append(self._current)
            self._current = None

    # Releasing ---------------------------------------------------------------------------

    def release(self, applied: int) -> None:
        """Delete the closed segments whose every record is applied (at or below `applied`)."""
        with self._ready:
            done = [s for s in self._closed if s.last <= applied]
            self._closed = [s for s in self._closed if s.last > applied]
        for segment in done:
            with suppress(FileNotFoundError):
                segment.path.unlink()
