"""CPU time per request with the ASGI app called directly: no HTTP, no load generator.

The figures of docs/benchmarks.md "What changed in this round" come from this script: it
isolates the server's own work per request, so two versions of the code can be compared
on a busy machine (run them alternately). It builds a throw-away SQLite database with the
bench team's 100,000 sources (as bench/api_bench.py does), then for each case sends requests
one after another on uvloop and divides the process's CPU time by their number.

    .venv/bin/python bench/api_inprocess.py [--sources 100000] [--requests 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import uvloop
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_bench import PER_PAGE, TARGET_BODY, seed_sources, workspace
from watchpost.app import create_app
from watchpost.settings import Settings

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def bench_app(data_dir: Path, secret_key: str, *, per_minute: int = 0) -> FastAPI:
    """The app on data_dir's database; rate limits of per_minute (0: none, as one token sends
    every request of a run)."""
    return create_app(
        Settings(
            data_dir=data_dir,
            secret_key=secret_key,
            log_level="warning",
            rate_limit_per_minute=per_minute,
            ping_rate_limit_per_minute=per_minute,
        )
    )


async def call(
    app: App, token: str, method: str, path: str, body: bytes = b""
) -> tuple[int, bytes]:
    """One request through the ASGI app; returns status and body."""
    path, _, query = path.partition("?")
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()  # never: the app does not read past the body
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    status, chunks = 0, []

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    headers = [(b"host", b"127.0.0.1:8000"), (b"authorization", f"Bearer {token}".encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    await app(scope, receive, send)
    return status, b"".join(chunks)


async def expect_status(
    app: App, token: str, status: int, method: str, path: str, body: bytes = b""
) -> bytes:
    """call(), which must answer status; the body."""
    got, answer = await call(app, token, method, path, body)
    if got != status:
        raise SystemExit(f"{method} {path}: {got} {answer[:200]!r}")
    return answer


async def measure(
    name: str, requests: int, one: Callable[[], Awaitable[None]], warmup: int = 50
) -> None:
    for _ in range(warmup):
        await one()
    started = time.process_time()
    for _ in range(requests):
        await one()
    print(f"{name:<40} {(time.process_time() - started) / requests * 1000:8.3f} ms CPU/request")


async def run(data_dir: Path, secret_key: str, token: str, sources: int, requests: int) -> None:
    app = bench_app(data_dir, secret_key)
    rng = random.Random(1)
    pages = max(1, sources // PER_PAGE)

    expect = partial(expect_status, app, token)

    name = f"bench-{secrets.token_hex(4)}".encode()
    created = await expect(201, "POST", "/api/v1/collectors", b'{"name": "' + name + b'"}')
    targets = f"/api/v1/collectors/{json.loads(created)['data']['id']}/targets"
    made = await expect(201, "POST", "/api/v2/heartbeats", b'{"name": "nightly"}')
    ping = "/" + json.loads(made)["data"]["attributes"]["url"].split("/", 3)[3]
    await expect(200, "GET", ping)  # the first ping of a pending heartbeat takes the slow path

    async def list_page() -> None:
        await expect(
            200, "GET", f"/api/v1/sources?per_page={PER_PAGE}&page={rng.randint(1, pages)}"
        )

    async def create_target() -> None:
        await expect(201, "POST", targets, json.dumps(TARGET_BODY).encode())

    async def ping_up() -> None:
        await expect(200, "GET", ping)

    async def missing_source() -> None:
        await expect(404, "GET", "/api/v1/sources/999999999")

    await measure(f"GET /api/v1/sources?per_page={PER_PAGE}", requests, list_page)
    await measure("POST /api/v1/collectors/{id}/targets", requests * 3, create_target)
    await measure("GET /api/v1/heartbeat/{token} (up)", requests * 3, ping_up)
    await measure("GET /api/v1/sources/{missing id}", requests * 3, missing_source)
    await app.state.ctx.db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=100_000)
    parser.add_argument(
        "--requests",
        type=int,
        default=1_000,
        help="list requests (three times as many of the others)",
    )
    args = parser.parse_args()
    with workspace("watchpost-inprocess-") as (data_dir, secret_key, token):
        seed_sources(data_dir, secret_key, args.sources)
        uvloop.run(run(data_dir, secret_key, token, args.sources, args.requests))


if __name__ == "__main__":
    main()
