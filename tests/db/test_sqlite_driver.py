"""The sqlite+watchpost dialect: statements on the loop thread, writers queued, busy waits async."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from watchpost.db.session import Database, create_engine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    path = tmp_path / "driver.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    engine = create_engine(f"sqlite+watchpost:///{path}")
    yield engine
    await engine.dispose()


async def test_core_connections_execute(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.execute(text("INSERT INTO t (v) VALUES ('a'), ('b')"))
    async with engine.connect() as conn:
        rows = (await conn.execute(text("SELECT v FROM t ORDER BY id"))).scalars().all()
    assert rows == ["a", "b"]


async def test_concurrent_writers_of_one_process_queue_instead_of_failing(
    engine: AsyncEngine,
) -> None:
    db = Database(engine)
    order: list[int] = []

    async def writer(number: int) -> None:
        async with db.write_sessions() as session, session.begin():
            await session.execute(text("INSERT INTO t (v) VALUES (:v)"), {"v": f"w{number}"})
            order.append(number)
            await asyncio.sleep(0)  # hand the loop to the other writers mid-transaction
            order.append(number)

    await asyncio.gather(*(writer(number) for number in range(20)))
    async with db.read_sessions() as session:
        count = (await session.execute(text("SELECT count(*) FROM t"))).scalar_one()
    assert count == 20
    # Each transaction ran to its end before the next one began.
    assert all(order[i] == order[i + 1] for i in range(0, len(order), 2))


async def test_a_lock_held_by_another_process_is_waited_out_without_blocking_the_loop(
    engine: AsyncEngine, tmp_path: Path
) -> None:
    other = sqlite3.connect(tmp_path / "driver.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    ticking = asyncio.create_task(ticker())
    asyncio.get_running_loop().call_later(0.2, other.rollback)
    db = Database(engine)
    async with db.write_sessions() as session, session.begin():
        await session.execute(text("INSERT INTO t (v) VALUES ('after')"))
    ticking.cancel()
    other.close()
    assert ticks > 10, "the event loop was blocked while waiting for the lock"


async def test_a_lock_held_too_long_fails_after_the_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    sqlite3.connect(path).execute("CREATE TABLE t (id INTEGER PRIMARY KEY)").connection.close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    short = create_engine(f"sqlite+watchpost:///{path}", busy_timeout=0.05)
    try:
        with pytest.raises(OperationalError, match="locked"):
            async with Database(short).write_sessions() as session, session.begin():
                await session.execute(text("INSERT INTO t DEFAULT VALUES"))
    finally:
        other.rollback()
        other.close()
        await short.dispose()


async def test_a_failed_transaction_releases_the_writers_queue(engine: AsyncEngine) -> None:
    db = Database(engine)
    with pytest.raises(OperationalError):
        async with db.write_sessions() as session, session.begin():
            await session.execute(text("INSERT INTO missing_table VALUES (1)"))
    async with db.write_sessions() as session, session.begin():
        await session.execute(text("INSERT INTO t (v) VALUES ('next')"))
