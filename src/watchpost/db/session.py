"""Engine and session factories.

SQLite runs in WAL mode through the `sqlite+watchpost` dialect (db/sqlite_inline.py). Reads
open a deferred transaction; writes open theirs with `BEGIN IMMEDIATE`, so a writer takes
the write lock up front (queueing behind this process's other writers) instead of failing
with "database is locked" half-way through a transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.dialects import registry
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry

from watchpost.db.counts import Anchors
from watchpost.db.group_commit import GroupCommit
from watchpost.db.outage import Outage
from watchpost.db.sqlite_inline import WriteGate

SQLITE_BEGIN_OPTION = "watchpost_sqlite_begin"
T = TypeVar("T")
R = TypeVar("R")


registry.register("sqlite.watchpost", "watchpost.db.sqlite_inline", "SQLiteDialect_inline")

SQLITE_BUSY_TIMEOUT = 30.0
SQLITE_POOL = (8, 8)
POSTGRES_POOL = (10, 10)
"""Connections kept in the pool, and opened beyond them when busy."""
BACKGROUND_CONNECTIONS = 4
"""Of a pool's connections, what requests leave for the engine, the deliverer and the ping
group commit (Database.admission)."""


def create_engine(
    url: str, *, echo: bool = False, busy_timeout: float = SQLITE_BUSY_TIMEOUT
) -> AsyncEngine:
    """An async engine for url (already mapped to its async driver by Settings).

    busy_timeout: how long a SQLite writer waits for another process's write lock.
    Statement parameters are never part of an error's text (hide_parameters), so no log
    line or traceback shows them: they hold tokens, and anything a request sent.
    """
    if url.startswith("sqlite"):
        engine = create_async_engine(
            url,
            echo=echo,
            hide_parameters=True,
            connect_args={"timeout": busy_timeout, "write_gate": WriteGate()},
            pool_size=SQLITE_POOL[0],
            max_overflow=SQLITE_POOL[1],
        )
        _configure_sqlite(engine)
        return engine
    return create_async_engine(
        url,
        echo=echo,
        hide_parameters=True,
        pool_size=POSTGRES_POOL[0],
        max_overflow=POSTGRES_POOL[1],
        pool_pre_ping=True,
    )


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in (
            "PRAGMA journal_mode=WAL",
            "PRAGMA synchronous=NORMAL",
            "PRAGMA foreign_keys=ON",
        ):
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(SQLITE_BEGIN_OPTION, "DEFERRED")
        # Straight to the driver's cursor rather than exec_driver_sql: ≈ 5 µs less per
        # transaction (measured on the token lookup), and every request begins two.
        cursor = conn.connection.cursor()
        try:
            cursor.execute(f"BEGIN {mode}")
        finally:
            cursor.close()


class Database:
    """The engine, two session factories (reads, writes), the list page anchors, the
    process's view of whether the database is reachable (`outage`), its group commits, and
    `admission`: the requests that may hold a connection at once.

    Requests queue for a connection in `admission`, first come first served, rather than
    in the pool: the pool's queue (an asyncio.Queue) lets a newcomer take a returned
    connection before the waiter woken for it, which goes back to the end of the line, so
    under load a few requests waited seconds while the median took a fraction of that
    (docs/benchmarks.md, "Peers"). asyncio.Semaphore hands a released permit to its first
    waiter and admits no newcomer past one.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        kept, extra = SQLITE_POOL if engine.dialect.name == "sqlite" else POSTGRES_POOL
        self.admission = asyncio.Semaphore(max(1, kept + extra - BACKGROUND_CONNECTIONS))
        self.anchors = Anchors()
        self.outage = Outage()
        self.read_sessions = async_sessionmaker(engine, expire_on_commit=False)
        writer = engine.execution_options(**{SQLITE_BEGIN_OPTION: "IMMEDIATE"})
        self.write_sessions = async_sessionmaker(writer, expire_on_commit=False)
        self._groups: dict[object, GroupCommit[Any, Any]] = {}

    def grouped(
        self, apply: Callable[[AsyncSession, Sequence[T]], Awaitable[Sequence[R]]]
    ) -> GroupCommit[T, R]:
        """The group commit of `apply` on this database (made at its first use)."""
        found = self._groups.get(apply)
        if found is None:
            found = GroupCommit(self.write_sessions, apply, committed=self.outage.succeeded)
            self._groups[apply] = found
        return found

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    async def dispose(self) -> None:
        await self.engine.dispose()
