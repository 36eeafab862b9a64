"""SQLite for asyncio without a thread hop per call: the `sqlite+watchpost` dialect.

aiosqlite runs every cursor call in a helper thread; SQLAlchemy's adapter makes four such
calls per statement. Measured here (bench/sqlite_driver_bench.py), one indexed SELECT cost
142 µs of CPU and 280 µs of wall time that way, against 7 µs calling sqlite3 directly. A
local SQLite statement is cheaper than the hop, so this dialect calls sqlite3 on the event
loop's thread.

Waiting is the one thing that must not block the loop:

- Writers of this process queue on an asyncio lock taken when `BEGIN IMMEDIATE` runs and
  released at commit, rollback or close, so they never meet inside SQLite.
- A lock held by another process (`watchpost token create` while the server runs) is met
  with SQLITE_BUSY immediately (busy_timeout 0) and retried after an asyncio sleep, with
  backoff, until `timeout` seconds have passed.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import pool
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL, AdaptedConnection
from sqlalchemy.util.concurrency import await_only

DEFAULT_BUSY_TIMEOUT = 30.0
_BUSY_MESSAGES = ("database is locked", "database table is locked", "database is busy")


async def _switch() -> None:
    """Awaited once per statement: SQLAlchemy's async layer insists the driver awaits.

    Awaiting a coroutine that never suspends costs a greenlet switch, not a trip through
    the event loop.
    """


class WriteGate:
    """The writers' queue of one database file within this process."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()


class InlineCursor:
    """A DB-API cursor whose statements run at once; rows are fetched eagerly."""

    server_side = False

    def __init__(self, connection: InlineConnection) -> None:
        self._connection = connection
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.arraysize = 1
        self._rows: deque[Any] = deque()

    def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> None:
        cursor = self._connection.run(operation, parameters, many=False)
        self._collect(cursor)

    def executemany(self, operation: str, seq_of_parameters: Sequence[Sequence[Any]]) -> None:
        cursor = self._connection.run(operation, seq_of_parameters, many=True)
        self._collect(cursor)

    def _collect(self, cursor: sqlite3.Cursor) -> None:
        try:
            self.description = cursor.description
            if cursor.description:
                self._rows = deque(cursor.fetchall())
                self.rowcount = self.lastrowid = -1
            else:
                self._rows = deque()
                self.rowcount = cursor.rowcount
                self.lastrowid = cursor.lastrowid
        finally:
            cursor.close()

    def setinputsizes(self, *inputsizes: Any) -> None:
        pass

    async def _async_soft_close(self) -> None:
        """Called by SQLAlchemy's async results; rows are already fetched."""

    def fetchone(self) -> Any:
        return self._rows.popleft() if self._rows else None

    def fetchmany(self, size: int | None = None) -> list[Any]:
        count = min(size or self.arraysize, len(self._rows))
        return [self._rows.popleft() for _ in range(count)]

    def fetchall(self) -> list[Any]:
        rows = list(self._rows)
        self._rows.clear()
        return rows

    def close(self) -> None:
        self._rows.clear()


class InlineConnection(AdaptedConnection):
    """The DB-API connection SQLAlchemy sees; `_connection` is the sqlite3 one."""

    __slots__ = ("_busy_timeout", "_gate", "_holds_gate", "_raw")

    def __init__(self, raw: sqlite3.Connection, gate: WriteGate, busy_timeout: float) -> None:
        # AdaptedConnection types `_connection` as an asyncio driver's; ours is sqlite3's.
        self._connection = raw  # type: ignore[assignment]
        self._raw = raw
        self._gate = gate
        self._busy_timeout = busy_timeout
        self._holds_gate = False

    @property
    def isolation_level(self) -> str | None:
        return self._raw.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: Any) -> None:
        self._raw.isolation_level = value

    def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._raw.create_function(*args, **kwargs)

    def cursor(self, server_side: bool = False) -> InlineCursor:
        return InlineCursor(self)

    def run(self, operation: str, parameters: Any, *, many: bool) -> sqlite3.Cursor:
        takes_write_lock = (
            operation.lstrip()[:15].upper().startswith(("BEGIN IMMEDIATE", "BEGIN EXCL"))
        )
        if takes_write_lock and not self._holds_gate:
            await_only(self._gate.lock.acquire())
            self._holds_gate = True
        await_only(_switch())
        try:
            return self._retry_busy(operation, parameters, many)
        except BaseException:
            if takes_write_lock:
                self._release_gate()
            raise

    def _retry_busy(self, operation: str, parameters: Any, many: bool) -> sqlite3.Cursor:
        deadline = time.monotonic() + self._busy_timeout
        delay = 0.001
        while True:
            try:
                if many:
                    return self._raw.executemany(operation, parameters)
                if parameters is None:
                    return self._raw.execute(operation)
                return self._raw.execute(operation, parameters)
            except sqlite3.OperationalError as exc:
                busy = any(text in str(exc) for text in _BUSY_MESSAGES)
                if not busy or time.monotonic() + delay > deadline:
                    raise
            await_only(asyncio.sleep(delay))
            delay = min(delay * 2, 0.05)

    def _release_gate(self) -> None:
        if self._holds_gate:
            self._holds_gate = False
            self._gate.lock.release()

    def _ending(self, end: Callable[[], None]) -> None:
        """End the transaction (or the connection) with `end`, then free the write gate."""
        try:
            end()
        finally:
            self._release_gate()

    def commit(self) -> None:
        self._ending(self._raw.commit)

    def rollback(self) -> None:
        self._ending(self._raw.rollback)

    def close(self) -> None:
        self._ending(self._raw.close)

    def terminate(self) -> None:
        self.close()


class InlineDBAPI:
    """The module-like object SQLAlchemy calls `dbapi`: sqlite3's names plus connect()."""

    paramstyle = "qmark"

    def __init__(self) -> None:
        for name in (
            "DatabaseError",
            "Error",
            "IntegrityError",
            "InterfaceError",
            "InternalError",
            "NotSupportedError",
            "OperationalError",
            "ProgrammingError",
            "DataError",
            "Warning",
            "sqlite_version",
            "sqlite_version_info",
            "PARSE_COLNAMES",
            "PARSE_DECLTYPES",
            "Binary",
        ):
            setattr(self, name, getattr(sqlite3, name))
        self.sqlite = sqlite3

    def connect(
        self,
        database: str,
        *,
        write_gate: WriteGate | None = None,
        timeout: float = DEFAULT_BUSY_TIMEOUT,
        **kwargs: Any,
    ) -> InlineConnection:
        for fixed in ("check_same_thread", "isolation_level"):
            kwargs.pop(fixed, None)
        raw = sqlite3.connect(
            database, timeout=0, isolation_level=None, check_same_thread=False, **kwargs
        )
        raw.execute("PRAGMA busy_timeout = 0")
        return InlineConnection(raw, write_gate or WriteGate(), timeout)


class SQLiteDialect_inline(SQLiteDialect_pysqlite):
    driver = "watchpost"
    is_async = True
    supports_statement_cache = True
    supports_server_side_cursors = False
    has_terminate = True

    @classmethod
    def import_dbapi(cls) -> Any:
        return InlineDBAPI()

    @classmethod
    def get_pool_class(cls, url: URL) -> type[pool.Pool]:
        if cls._is_url_file_db(url):
            return pool.AsyncAdaptedQueuePool
        return pool.StaticPool

    def get_driver_connection(self, connection: Any) -> Any:
        return connection._connection

    def do_terminate(self, dbapi_connection: Any) -> None:
        dbapi_connection.terminate()

    def is_disconnect(self, e: Any, connection: Any, cursor: Any) -> bool:
        if isinstance(e, sqlite3.ProgrammingError) and "closed database" in str(e):
            return True
        return bool(super().is_disconnect(e, connection, cursor))


dialect = SQLiteDialect_inline
