"""The test's own app behind a real HTTP server, for clients that speak HTTP themselves (the
hosted API's synchronous Python client): uvicorn serves the same app (same database, same
clock) on the test's event loop, and the client runs in a thread (`asyncio.to_thread`)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from fastapi import FastAPI


@asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[str]:
    """Yields the base URL (`http://127.0.0.1:<port>`) while the app is served."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # a stream still open at the end (a live tail) is cancelled after this many seconds
    # rather than holding the test's shutdown
    config = uvicorn.Config(app, log_config=None, lifespan="off", timeout_graceful_shutdown=10)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(1500):
            if server.started or task.done():
                break
            await asyncio.sleep(0.01)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()
