"""The tests' databases: one engine per backend for a whole worker (`SharedEngines`), the
PostgreSQL reset between tests (`PostgresReset`), and the end of what a test left running on
the worker's event loop (`cancel_leftovers`)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import TupleRow
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import ConnectionPoolEntry

from watchpost import destinations
from watchpost.clock import Clock
from watchpost.context import AppContext
from watchpost.crypto import SecretBox, load_or_create_key
from watchpost.db.counts import RowCount
from watchpost.db.registry import all_metadata
from watchpost.db.session import Database, create_engine
from watchpost.ratelimit import RateLimits
from watchpost.settings import Settings


class SharedEngines:
    """The engines of a worker, one per backend, which every test's AppContext shares.

    An engine per test cost each test its first connections (a new PostgreSQL backend
    process, a SQLite file opened and set to WAL) and the compilation of every statement it
    ran (the compiled-statement cache belongs to the engine). Each test still gets a fresh
    database and a fresh `Database` (its own list anchors and outage state) around the engine:

    - SQLite: the engine opens whichever file the test's settings name (a `do_connect` hook
      swaps the path in), and its pool is emptied at the end of each test.
    - PostgreSQL: every test uses the worker's schema, emptied before the test
      (PostgresReset); pooled connections stay open from one test to the next.

    Settings for any other database (a test's own URL) get an engine of their own, as
    AppContext.build would make, disposed at the end of the test.
    """

    def __init__(self, postgres_url: str | None) -> None:
        self._postgres_url = postgres_url
        self._engines: dict[str, AsyncEngine] = {}
        self._sqlite_file = ""
        self._boxes: dict[str, SecretBox] = {}

    def engine_for(self, url: str) -> AsyncEngine | None:
        """The shared engine for url (an async URL), or None when url has none."""
        if url.startswith("sqlite+watchpost:///") and not url.endswith(":memory:"):
            self._sqlite_file = url.split(":///", 1)[1].split("?", 1)[0]
            if "sqlite" not in self._engines:
                self._engines["sqlite"] = self._sqlite_engine(url)
            return self._engines["sqlite"]
        if url == self._postgres_url:
            if "postgres" not in self._engines:
                self._engines["postgres"] = create_engine(url)
            return self._engines["postgres"]
        return None

    def _sqlite_engine(self, url: str) -> AsyncEngine:
        engine = create_engine(url)

        @event.listens_for(engine.sync_engine, "do_connect")
        def to_the_tests_file(
            _dialect: Any, _record: ConnectionPoolEntry, cargs: list[Any], _cparams: Any
        ) -> None:
            cargs[0] = self._sqlite_file

        return engine

    def context(self, settings: Settings, clock: Clock) -> AppContext:
        """What AppContext.build(settings, clock) makes, on the shared engine."""
        url = settings.async_database_url
        engine = self.engine_for(url)
        if engine is None:
            return AppContext.build(settings, clock)
        sqlite_path = settings.sqlite_path()
        key_dir = sqlite_path.parent if sqlite_path is not None else settings.data_dir
        destinations.configure(settings.denied_networks)
        key = load_or_create_key(settings.secret_key, key_dir)
        if key not in self._boxes:
            self._boxes[key] = SecretBox(key)
        return AppContext(
            settings=settings,
            db=Database(engine),
            clock=clock,
            box=self._boxes[key],
            limits=RateLimits.per_minute(
                settings.rate_limit_per_minute,
                settings.ping_rate_limit_per_minute,
                settings.login_per_minute_address,
                settings.login_per_minute_account,
            ),
        )

    async def release(self, ctx: AppContext) -> None:
        """The end of a test's context: its engine disposed, unless it is a shared PostgreSQL
        one (a shared SQLite engine lets go of the test's file)."""
        await ctx.logs.close()
        engine = ctx.db.engine
        if engine is not self._engines.get("postgres"):
            await engine.dispose()

    async def close(self) -> None:
        for engine in self._engines.values():
            await engine.dispose()
        self._engines.clear()


async def cancel_leftovers(before: set[asyncio.Task[Any]]) -> None:
    """Cancel the tasks a test started and left running: the worker's event loop lives on
    into the next test, where they would otherwise go on working (a per-test loop used to
    cancel them when it closed)."""
    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task not in before and task is not current]
    for task in left:
        task.cancel()
    for task in left:
        with contextlib.suppress(BaseException):
            await task


class PostgresReset:
    """Empties the test schema between tests in one round trip: DELETE from every table,
    dependents first, then every sequence back to 1 (ids start at 1, as on SQLite's fresh
    copy), and the server's own location seeded again. TRUNCATE … RESTART IDENTITY cost 93-148 ms a test (it rewrites every table's
    files); this costs a few ms. row_counts goes first, so the counting triggers that the
    DELETEs fire find nothing to update, and it ends empty, consistent with the empty tables.
    One connection per worker, reopened if a test broke it."""

    def __init__(self, url: str) -> None:
        self.url = url.replace("postgresql+psycopg://", "postgresql://")
        self._conn: psycopg.Connection[TupleRow] | None = None
        self._statement = sql.Composed([])

    def __call__(self) -> None:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = psycopg.connect(self.url, autocommit=True)
            # A transaction some test left open fails the next test instead of hanging it.
            self._conn.execute("SET lock_timeout = '30s'")
            self._statement = self._build(self._conn)
        self._conn.execute(self._statement)

    @staticmethod
    def _build(conn: psycopg.Connection[TupleRow]) -> sql.Composed:
        tables = [table.name for table in reversed(all_metadata().sorted_tables)]
        tables.sort(key=lambda name: name != RowCount.__tablename__)  # stable: row_counts first
        sequences = conn.execute(
            "SELECT sequence_name FROM information_schema.sequences"
            " WHERE sequence_schema = current_schema() ORDER BY 1"
        ).fetchall()
        statements = [sql.SQL("DELETE FROM {}").format(sql.Identifier(name)) for name in tables]
        if sequences:
            restarts = sql.SQL("SELECT {}").format(
                sql.SQL(", ").join(
                    sql.SQL("setval({}, 1, false)").format(
                        sql.Literal(sql.Identifier(name).as_string(conn))
                    )
                    for (name,) in sequences
                )
            )
            statements.append(restarts)
        # What migration 0038 seeds: the server's own location (id 1, as on SQLite's copy).
        seed = sql.SQL(
            "INSERT INTO locations (name, region, private, is_server, offline_after_s,"
            " created_at) VALUES ('local', 'us', false, true, 90, now())"
        )
        statements.append(sql.Composed([seed]))
        return sql.SQL("; ").join([sql.SQL("BEGIN"), *statements, sql.SQL("COMMIT")])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
