"""What the second hardening round costs, beside what it replaced.

1. The two middlewares every request now passes (http/nul.py's RefuseNul, http/security.py's
   SecurityHeaders) around a bare ASGI app answering a constant JSON body, against the bare
   app alone: CPU µs per request, the median of alternating rounds.
2. An incoming webhook's regular expression `^(a+)+$`: Python's `re` (what matched before)
   on the issue's 28 `a`s and a `!` is too slow to run here, so on `--backtrack-chars` of
   them (each further character doubles its time), and RE2 through incoming/patterns.py on
   the most a value is searched (16 KiB of `a` and a `!`).

    .venv/bin/python bench/hardening_bench.py [--requests 200000] [--rounds 5]
        [--backtrack-chars 22]
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import re
import statistics
import time
from typing import Any

from fastapi.responses import HTMLResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from watchpost.http.nul import RefuseNul
from watchpost.http.security import SecurityHeaders
from watchpost.incoming import patterns

SCOPE: dict[str, Any] = {
    "type": "http",
    "method": "GET",
    "path": "/api/v1/heartbeat/6f0c1d2e3a4b5c6d7e8f9a0b",
    "query_string": b"",
    "headers": [],
}


async def bare(scope: Scope, receive: Receive, send: Send) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"{}"})


async def _receive() -> Message:
    return {"type": "http.request", "body": b""}


async def _send(message: Message) -> None:
    return None


async def cpu_per_request(app: ASGIApp, requests: int) -> float:
    """CPU µs per request of app, called one request after another."""
    started = time.process_time()
    for _ in range(requests):
        await app(dict(SCOPE), _receive, _send)
    return (time.process_time() - started) / requests * 1e6


async def middlewares(requests: int, rounds: int) -> None:
    wrapped = SecurityHeaders(
        RefuseNul(bare, html_prefix="/status/", html_not_found=lambda: HTMLResponse("", 404))
    )
    results: dict[str, list[float]] = {"bare app": [], "with both middlewares": []}
    for _ in range(rounds):  # alternating, so a busy machine weighs on both alike
        results["bare app"].append(await cpu_per_request(bare, requests))
        results["with both middlewares"].append(await cpu_per_request(wrapped, requests))
    for name, values in results.items():
        print(f"{name:<24} {statistics.median(values):7.2f} µs CPU/request (median of {rounds})")
    added = statistics.median(results["with both middlewares"]) - statistics.median(
        results["bare app"]
    )
    print(f"{'the middlewares add':<24} {added:7.2f} µs CPU/request")


def backtracking(chars: int) -> None:
    pattern = "^(a+)+$"
    text = "a" * chars + "!"
    started = time.perf_counter()
    assert re.search(pattern, text) is None
    took = time.perf_counter() - started
    print(f"re  {pattern} on {chars} a's and '!': {took * 1000:10.1f} ms")
    text = "a" * (patterns.MAX_INPUT_BYTES - 1) + "!"
    started = time.perf_counter()
    for _ in range(100):
        assert patterns.matches(pattern, text) is False
    took = (time.perf_counter() - started) / 100
    print(f"RE2 {pattern} on {len(text)} bytes:       {took * 1000:10.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--backtrack-chars", type=int, default=22)
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    asyncio.run(middlewares(args.requests, args.rounds))
    backtracking(args.backtrack_chars)


if __name__ == "__main__":
    main()
