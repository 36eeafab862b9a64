"""The app context opens its logs store at first use, once, and retention opens none that
holds nothing yet (tests/test_first_use.py: the libraries a server loads)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from watchpost.context import AppContext
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.retention import RetentionLoop
from watchpost.settings import Settings


def _context(data_dir: Path) -> AppContext:
    return AppContext.build(
        Settings(
            data_dir=data_dir,
            database_url=f"sqlite:///{data_dir / 'watchpost.db'}",
            secret_key="first-use",
        )
    )


async def test_the_store_is_built_once_at_first_use(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    try:
        assert ctx.logs_to_prune() is None  # nothing opened, nothing stored
        await ctx.close_logs()  # nothing to close
        with ThreadPoolExecutor(8) as pool:
            stores = list(pool.map(lambda _: ctx.logs, range(32)))
        assert isinstance(stores[0], EmbeddedStore)
        assert all(store is stores[0] for store in stores)
        assert ctx.logs_to_prune() is stores[0]  # opened: retention prunes it
    finally:
        await ctx.close_logs()
        await ctx.db.dispose()


async def test_retention_opens_no_store_that_holds_nothing(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    loop = RetentionLoop(ctx.db, ctx.logs_to_prune, ctx.clock, interval=3600)
    task = asyncio.create_task(loop.run_forever())
    try:
        await asyncio.wait_for(loop.round_done.wait(), 30)
        assert loop.rounds == 1
        assert ctx.logs_to_prune() is None
        assert not (tmp_path / "logs").exists()
    finally:
        loop.stop()
        await asyncio.wait_for(task, 30)
        await ctx.db.dispose()
