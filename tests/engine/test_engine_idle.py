"""An engine with nothing due costs one read a pass: no claim, no sweep between polls."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy import event

from tests.factories.api import Api
from tests.factories.engine import engine_of
from tests.factories.monitors import create_monitor
from watchpost.clock import FrozenClock
from watchpost.engine.checked_rows import KINDS


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
