"""The logs stores of the route tests: each test runs on the embedded store and on the
ClickHouse store (tests/factories/logs.py), over both databases."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from fastapi import FastAPI

from tests.factories.logs import *  # noqa: F403
from watchpost.logs.events import LogEvent
from watchpost.logs.store import LogStore


class Recorded:
    """The app's store, and every event the test appended to it (for the reference)."""

    def __init__(self, store: LogStore) -> None:
        self.store = store
        self.events: list[LogEvent] = []

    async def append(self, events: Sequence[LogEvent]) -> None:
        self.events.extend(events)
        await self.store.append(events)


@pytest.fixture(params=["embedded", "clickhouse"])
def store(request: pytest.FixtureRequest, app: FastAPI) -> Iterator[Recorded]:
    chosen: LogStore = request.getfixturevalue(f"{request.param}_logs")
    ctx = app.state.ctx
    own = ctx.logs
    ctx.logs = chosen
    yield Recorded(chosen)
    ctx.logs = own  # the app closes its own; the fixture closes the chosen one
