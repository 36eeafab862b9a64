from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI

from tests.logs_query.memory_store import MemoryStore


@pytest.fixture
def store(app: FastAPI) -> Iterator[MemoryStore]:
    memory = MemoryStore()
    app.state.ctx.logs = memory
    yield memory
