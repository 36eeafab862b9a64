"""Measure httpx against aiohttp as the HTTP client of the check engine.

A fast HTTP server runs in a child process (so its CPU is not counted); this process then
runs N checks per client with C in flight at once, the way the check engine will: one
shared client with a connection pool, a GET per check, a bounded body read, the status
compared. It reports checks/s and the client's CPU milliseconds per check.

    python bench/http_client_bench.py --checks 20000 --concurrency 200
    python bench/http_client_bench.py --fresh   # a new connection per check (no keep-alive)

--url measures against an existing server (e.g. nginx) instead of the built-in one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import cast

import aiohttp
import httpx

BODY = b"ok " * 100
BODY_LIMIT = 64 * 1024


class _Responder(asyncio.Protocol):
    """A minimal keep-alive HTTP/1.1 server: 200 with a 300-byte body for every request."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
            close = b"connection: close" in head.lower()
            self.transport.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                + str(len(BODY)).encode()
                + (b"\r\nConnection: close" if close else b"")
                + b"\r\n\r\n"
                + BODY
            )
            if close:
                self.transport.close()
                return


async def _serve(port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_Responder, "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()


def serve(port: int) -> None:
    try:
        import uvloop

        uvloop.run(_serve(port))
    except ImportError:
        asyncio.run(_serve(port))


@dataclass
class Result:
    client: str
    checks: int
    failures: int
    seconds: float
    cpu_seconds: float

    def line(self) -> str:
        return (
            f"{self.client:8} {self.checks / self.seconds:9.0f} checks/s  "
            f"{self.cpu_seconds * 1000 / self.checks:6.3f} ms CPU/check  "
            f"failures {self.failures}"
        )


Check = Callable[[], Awaitable[bool]]


async def _run(name: str, check: Check, checks: int, concurrency: int) -> Result:
    failures = 0
    remaining = checks

    async def worker() -> None:
        nonlocal failures, remaining
        while remaining > 0:
            remaining -= 1
            if not await check():
                failures += 1

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return Result(name, checks, failures, time.perf_counter() - started, time.process_time() - cpu)


async def bench_httpx(url: str, checks: int, concurrency: int, fresh: bool) -> Result:
    limits = httpx.Limits(
        max_connections=concurrency, max_keepalive_connections=0 if fresh else concurrency
    )
    async with httpx.AsyncClient(limits=limits, timeout=10.0) as client:

        async def check() -> bool:
            try:
                async with client.stream("GET", url) as response:
                    size = 0
                    async for chunk in response.aiter_bytes():
                        size += len(chunk)
                        if size >= BODY_LIMIT:
                            break
                    return 200 <= response.status_code < 400
            except httpx.HTTPError:
                return False

        await _run("httpx", check, min(checks, 500), concurrency)  # warm-up
        return await _run("httpx", check, checks, concurrency)


async def bench_aiohttp(url: str, checks: int, concurrency: int, fresh: bool) -> Result:
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=fresh)
    timeout = aiohttp.ClientTimeout(total=10.0)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def check() -> bool:
            try:
                async with session.get(url) as response:
                    await response.content.read(BODY_LIMIT)
                    return 200 <= response.status < 400
            except (aiohttp.ClientError, TimeoutError):
                return False

        await _run("aiohttp", check, min(checks, 500), concurrency)  # warm-up
        return await _run("aiohttp", check, checks, concurrency)


async def _wait_for(port: int) -> None:
    for _ in range(100):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
        else:
            writer.close()
            await writer.wait_closed()
            return
    raise SystemExit(f"the bench server did not start on port {port}")


async def main_async(args: argparse.Namespace) -> None:
    url = args.url or f"http://127.0.0.1:{args.port}/"
    if not args.url:
        await _wait_for(args.port)
    mode = "new connection per check" if args.fresh else "keep-alive pool"
    print(
        f"# {platform.node()} {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"httpx {httpx.__version__}, aiohttp {aiohttp.__version__}, loop {args.loop}"
    )
    print(f"# {url} checks={args.checks} concurrency={args.concurrency} ({mode})")
    for _ in range(args.rounds):
        for bench in (bench_httpx, bench_aiohttp):
            result = await bench(url, args.checks, args.concurrency, args.fresh)
            print(result.line(), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="no keep-alive")
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="uvloop")
    parser.add_argument("--url", help="an existing server instead of the built-in one")
    parser.add_argument("--port", type=int, default=18999)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.port)
        return
    server = None
    if not args.url:
        server = subprocess.Popen([sys.executable, __file__, "--serve", "--port", str(args.port)])
    try:
        if args.loop == "uvloop":
            import uvloop

            uvloop.run(main_async(args))
        else:
            asyncio.run(main_async(args))
    finally:
        if server is not None:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
