"""An engine with nothing due costs one read a pass: no claim, no sweep between polls."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy import event

from tests.factories.api import Api
from tests.factories.engine import change, engine_of
from tests.factories.monitors import create_monitor
from watchpost.clock import FrozenClock
from watchpost.engine.checked_rows import KINDS
from watchpost.monitors.models import Monitor


@contextmanager
def statements(app: FastAPI) -> Iterator[list[str]]:
    """The SQL statements run on the app's database inside the block."""
    seen: list[str] = []
    sync_engine = app.state.ctx.db.engine.sync_engine

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(sync_engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(sync_engine, "before_cursor_execute", record)


async def test_a_pass_with_nothing_due_is_one_read(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    await create_monitor(api, url="https://example.com", check_frequency=60, paused=True)
    engine = engine_of(app)
    await engine.cycle()  # the first pass sweeps too
    clock.advance(timedelta(milliseconds=10))
    with statements(app) as seen:
        wait = await engine.cycle()
    assert len(seen) == len(KINDS)  # the earliest due time of each kind, nothing else
    assert all(statement.lstrip().upper().startswith("SELECT") for statement in seen)
    assert wait == engine.settings.engine_poll_interval


async def test_checks_due_within_the_claim_ahead_share_one_claim_and_start_on_time(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    """engine_claim_ahead (1 s): one pass leases what falls due within it, and a check claimed
    before its due time waits for it (its task sleeps; the probe is not called before)."""
    made = [
        await create_monitor(api, url=f"https://example.com/{n}", check_frequency=60)
        for n in range(4)
    ]
    now = clock.now()
    offsets = (0.0, 0.3, 0.6, 2.0)
    for monitor, offset in zip(made, offsets, strict=True):
        await change(app, Monitor, monitor["id"], next_check_at=now + timedelta(seconds=offset))
    started: list[str] = []

    async def probe(check: Any, _timeout: float) -> Any:
        started.append(check.url)
        await asyncio.Event().wait()  # never finishes in this test

    engine = engine_of(app, runners={"monitor": probe})
    with statements(app) as seen:
        wait = await engine._claim_due(now, engine.settings.engine_poll_interval)
    claimed = sorted(object_id for _, object_id in engine._leased)
    assert claimed == sorted(int(monitor["id"]) for monitor in made[:3])
    assert sum(statement.lstrip().upper().startswith("UPDATE") for statement in seen) == 1
    await asyncio.sleep(0)
    # The first was due now and started; the two due later are waiting for their time.
    assert started == ["https://example.com/0"]
    assert 0 < wait <= engine.settings.engine_poll_interval
    for task in list(engine._running):
        task.cancel()
    await asyncio.gather(*engine._running, return_exceptions=True)
