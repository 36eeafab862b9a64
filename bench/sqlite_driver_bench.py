"""Cost of one indexed SELECT through aiosqlite-style thread hops versus inline sqlite3.

Why Watchpost ships its own `sqlite+watchpost` dialect (src/watchpost/db/sqlite_inline.py):
SQLAlchemy's aiosqlite adapter makes four thread hops per statement (cursor, execute,
fetchall, close). This measures that pattern against the same statement on sqlite3 directly,
and through SQLAlchemy's async engine with each dialect.

    .venv/bin/python bench/sqlite_driver_bench.py [--statements 5000]

aiosqlite is not a Watchpost dependency; the hop measurement runs when it is installed
(`.venv/bin/pip install aiosqlite`) and is skipped with a note otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from sqlalchemy import text

from watchpost.db.session import create_engine

SELECT = "SELECT id, v FROM t WHERE id = ?"


def report(name: str, statements: int, cpu: float, wall: float) -> None:
    print(f"{name:<42} {cpu / statements * 1e6:8.1f} µs CPU {wall / statements * 1e6:8.1f} µs wall")


async def timed(name: str, statements: int, run: Callable[[], Awaitable[None]]) -> None:
    cpu, wall = time.process_time(), time.perf_counter()
    await run()
    report(name, statements, time.process_time() - cpu, time.perf_counter() - wall)


async def main(statements: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
            conn.execute("INSERT INTO t VALUES (1, 'x')")

        async def inline_sqlite3() -> None:
            conn = sqlite3.connect(path, isolation_level=None)
            for _ in range(statements):
                cursor = conn.execute(SELECT, (1,))
                cursor.fetchall()
                cursor.close()
            conn.close()

        await timed("sqlite3 on the loop thread", statements, inline_sqlite3)

        try:
            aiosqlite = importlib.import_module("aiosqlite")
        except ImportError:
            print("aiosqlite not installed: thread-hop measurement skipped")
        else:

            async def four_hops() -> None:
                conn = await aiosqlite.connect(path)
                for _ in range(statements):
                    cursor = await conn.cursor()
                    await cursor.execute(SELECT, (1,))
                    await cursor.fetchall()
                    await cursor.close()
                await conn.close()

            await timed("aiosqlite, 4 thread hops per statement", statements, four_hops)

        engine = create_engine(f"sqlite+watchpost:///{path}")

        async def through_sqlalchemy() -> None:
            async with engine.connect() as conn:
                for _ in range(statements):
                    (await conn.execute(text("SELECT id, v FROM t WHERE id = 1"))).all()

        await timed("SQLAlchemy async + sqlite+watchpost", statements, through_sqlalchemy)
        await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=5000)
    args = parser.parse_args()
    asyncio.run(main(args.statements))
