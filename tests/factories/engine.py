"""The check engine on the test app, direct row reads and writes, a recording HTTP server."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI

from tests.factories.servers import tcp_server
from watchpost.engine.loop import Engine
from watchpost.probes.http import CLIENT


def engine_of(app: FastAPI, owner: str = "engine-a", **kwargs: Any) -> Engine:
    return Engine(app.state.ctx, owner=owner, **kwargs)


async def load(app: FastAPI, model: Any, object_id: int | str) -> Any:
    """A fresh copy of one row."""
    async with app.state.ctx.db.read_sessions() as session:
        return await session.get(model, int(object_id))


async def change(app: FastAPI, model: Any, object_id: int | str, **values: Any) -> None:
    """Set columns of one row directly (what the API does not expose)."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = await session.get(model, int(object_id))
        for name, value in values.items():
            setattr(row, name, value)


@dataclass
class Recorder:
    """What a local HTTP server saw, and how it answers (per path)."""

    port: int = 0
    hits: Counter[str] = field(default_factory=Counter)
    status: dict[str, int] = field(default_factory=dict)
    hold: asyncio.Event | None = None

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@asynccontextmanager
async def recording_server() -> AsyncIterator[Recorder]:
    """An HTTP server that counts requests by path; 200 unless `status[path]` says otherwise."""
    recorder = Recorder()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = (await reader.readline()).decode()
        while (await reader.readline()).strip():
            pass
        path = request_line.split(" ")[1]
        recorder.hits[path] += 1
        if recorder.hold is not None:
            await recorder.hold.wait()
        code = recorder.status.get(path, 200)
        writer.write(
            f"HTTP/1.1 {code} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".encode()
        )
        await writer.drain()

    async with tcp_server(handle) as port:
        recorder.port = port
        try:
            yield recorder
        finally:
            await CLIENT.aclose()
