"""The ceiling: a bare FastAPI app with one route returning a constant JSON body.

Run it under the same uvicorn settings as `watchpost serve`; its requests/s is the most this
stack can do on the machine, which is what the Watchpost endpoints are compared against.

With `--stack` it also loads the other libraries `watchpost serve` holds resident (SQLAlchemy's
asyncio extension and ORM, its SQLite dialect with one connection opened, aiohttp with a
client session, pydantic-settings, orjson): its resident memory is then the floor of the stack, what a server
built on it holds before any code of its own (bench/serve_memory_bench.py).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import tempfile
from pathlib import Path

import uvicorn
from fastapi import FastAPI
from fastapi.responses import Response

BODY = b'{"data":{"id":"1","type":"ceiling","attributes":{"status":"ok"}}}'

app = FastAPI(title="ceiling")


@app.get("/")
async def constant() -> Response:
    return Response(BODY, media_type="application/json")


STACK = (
    "sqlalchemy.ext.asyncio",
    "sqlalchemy.orm",
    "sqlalchemy.dialects.sqlite.pysqlite",
    "aiohttp",
    "pydantic_settings",
    "orjson",
)


async def open_stack(folder: Path) -> None:
    """The libraries loaded and each used once: an SQLite connection, a client session."""
    for name in STACK:
        importlib.import_module(name)
    from aiohttp import ClientSession
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{folder / 'floor.db'}")
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
    async with ClientSession():
        pass
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the constant-body ceiling app.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--stack", action="store_true", help="also load the rest of the stack")
    args = parser.parse_args()
    if args.stack:
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(open_stack(Path(folder)))
    # The same uvicorn.run() arguments as watchpost.cli.cmd_serve.
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, proxy_headers=True)


if __name__ == "__main__":
    main()
