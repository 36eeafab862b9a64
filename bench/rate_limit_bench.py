"""What the rate limits cost per request, and how large a status page resource list gets.

1. CPU per request with the ASGI app called directly (bench/api_inprocess.py's harness), with
   the limits on (a limit so high it never refuses) and off (0), in alternating rounds so a
   busy machine weighs on both alike; the median round of each is printed, and the
   difference is the limiter's cost. Also the limiter alone: one `acquire` with one key and
   with 100,000 keys tracked, and the memory of 100,000 buckets.
2. A status page of 365 days of history with 250 resources: the bytes and CPU of
   `GET …/resources?per_page=250` and of one resource's GET.

    .venv/bin/python bench/rate_limit_bench.py [--requests 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import secrets
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import uvloop
from sqlalchemy import insert, select

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_bench import TEAM, child_env, run_cli
from api_inprocess import call
from watchpost.app import create_app
from watchpost.clock import SystemClock
from watchpost.settings import Settings
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusPageSection

NEVER = 1_000_000  # a limit no run reaches: every request goes through the limiter
App = Any


def build(data_dir: Path, secret_key: str, per_minute: int) -> App:
    return create_app(
        Settings(
            data_dir=data_dir,
            secret_key=secret_key,
            log_level="warning",
            rate_limit_per_minute=per_minute,
            ping_rate_limit_per_minute=per_minute,
        )
    )


async def expect(
    app: App, token: str, status: int, method: str, path: str, body: bytes = b""
) -> bytes:
    got, answer = await call(app, token, method, path, body)
    if got != status:
        raise SystemExit(f"{method} {path}: {got} {answer[:200]!r}")
    return answer


async def cpu_per_request(requests: int, one: Callable[[], Awaitable[None]]) -> float:
    """µs of process CPU per request."""
    started = time.process_time()
    for _ in range(requests):
        await one()
    return (time.process_time() - started) / requests * 1e6


async def limiter_cost(
    data_dir: Path, secret_key: str, token: str, requests: int, rounds: int
) -> None:
    apps = {"off": build(data_dir, secret_key, 0), "on": build(data_dir, secret_key, NEVER)}
    made = await expect(apps["off"], token, 201, "POST", "/api/v2/heartbeats", b'{"name": "bench"}')
    ping = "/" + json.loads(made)["data"]["attributes"]["url"].split("/", 3)[3]
    cases: dict[str, Callable[[App], Callable[[], Awaitable[None]]]] = {
        "GET /api/v1/sources/{missing id} (token)": lambda app: (
            lambda: _void(expect(app, token, 404, "GET", "/api/v1/sources/999999999"))
        ),
        "GET /api/v1/heartbeat/{token} (address)": lambda app: (
            lambda: _void(expect(app, token, 200, "GET", ping))
        ),
    }
    print(f"CPU per request, median of {rounds} alternating rounds of {requests} requests:")
    for name, case in cases.items():
        runs: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(rounds):
            for variant, app in apps.items():
                one = case(app)
                for _ in range(50):  # warm-up
                    await one()
                runs[variant].append(await cpu_per_request(requests, one))
        off, on = statistics.median(runs["off"]), statistics.median(runs["on"])
        print(f"  {name:<42} off {off:7.1f} µs   on {on:7.1f} µs   difference {on - off:+6.1f} µs")
    for app in apps.values():
        await app.state.ctx.db.dispose()


async def _void(work: Awaitable[Any]) -> None:
    await work


def limiter_alone() -> None:
    from watchpost.http.ratelimit import MAX_KEYS, RateLimiter

    print("The limiter alone:")
    limiter = RateLimiter(NEVER)
    calls = 1_000_000
    started = time.perf_counter()
    for _ in range(calls):
        limiter.acquire(7, 1000.0)
    print(f"  acquire, one key:            {(time.perf_counter() - started) / calls * 1e9:6.0f} ns")
    clock = SystemClock()
    started = time.perf_counter()
    for _ in range(calls):
        limiter.acquire(7, clock.now().timestamp())
    print(f"  the clock read + acquire:    {(time.perf_counter() - started) / calls * 1e9:6.0f} ns")
    limiter = RateLimiter(NEVER)
    addresses = [str(ipaddress.IPv6Address(2**127 + n)) for n in range(MAX_KEYS)]
    tracemalloc.start()
    for address in addresses:
        limiter.acquire(address, 1000.0)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    started = time.perf_counter()
    for n in range(calls):
        limiter.acquire(addresses[n % MAX_KEYS], 1000.0)
    per_call = (time.perf_counter() - started) / calls * 1e9
    print(f"  acquire, {MAX_KEYS:,} keys tracked: {per_call:6.0f} ns")
    print(
        f"  {MAX_KEYS:,} buckets of IPv6 addresses: {held / 2**20:.1f} MiB (the keys' strings excluded)"
    )


async def list_sizes(data_dir: Path, secret_key: str, token: str) -> None:
    app = build(data_dir, secret_key, 0)
    created = await expect(
        app, token, 201, "POST", "/api/v2/status-pages", b'{"subdomain": "bench", "history": 365}'
    )
    page_id = int(json.loads(created)["data"]["id"])
    ctx = app.state.ctx
    then = ctx.clock.now() - timedelta(days=400)
    stamps = {"created_at": then, "updated_at": then}
    async with ctx.db.write_sessions() as db, db.begin():
        team_id = await db.scalar(select(StatusPage.team_id).where(StatusPage.id == page_id))
        section_id = await db.scalar(
            insert(StatusPageSection)
            .values(team_id=team_id, status_page_id=page_id, name="", position=0, **stamps)
            .returning(StatusPageSection.id)
        )
        await db.execute(
            insert(StatusPageResource),
            [
                {
                    "team_id": team_id,
                    "status_page_id": page_id,
                    "status_page_section_id": section_id,
                    "resource_type": "ManuallyTrackedItem",
                    "public_name": f"service {n}",
                    "explanation": "",
                    "widget_type": "history",
                    "position": n,
                    "fixed_position": False,
                    "mark_as_down_for": "any_incident",
                    "mark_as_degraded_for": "no_incident",
                    **stamps,
                }
                for n in range(250)
            ],
        )
    url = f"/api/v2/status-pages/{page_id}/resources"
    listed = await expect(app, token, 200, "GET", f"{url}?per_page=250")
    first = json.loads(listed)["data"][0]["id"]
    one = await expect(app, token, 200, "GET", f"{url}/{first}")
    started = time.process_time()
    for _ in range(10):
        await expect(app, token, 200, "GET", f"{url}?per_page=250")
    list_ms = (time.process_time() - started) / 10 * 1000
    print("A status page with history 365 and 250 resources (created 400 days ago):")
    print(f"  GET …/resources?per_page=250: {len(listed):>10,} bytes, {list_ms:6.1f} ms CPU")
    print(f"  GET …/resources/{{id}}:         {len(one):>10,} bytes")
    await app.state.ctx.db.dispose()


async def run(
    data_dir: Path, secret_key: str, token: str, requests: int, rounds: int, only: str | None
) -> None:
    if only in (None, "limits"):
        await limiter_cost(data_dir, secret_key, token, requests, rounds)
        limiter_alone()
    if only in (None, "sizes"):
        await list_sizes(data_dir, secret_key, token)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2_000, help="requests per round and case")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per variant (on, off)")
    parser.add_argument(
        "--only",
        choices=["limits", "sizes"],
        help="one part (sizes runs on code without the limiter too, for a before/after)",
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="watchpost-ratelimit-"))
    secret_key = secrets.token_urlsafe(32)
    try:
        env = child_env(workdir / "data", secret_key, "warning")
        run_cli(["migrate"], env)
        token = run_cli(["token", "create", "--team", TEAM], env).strip()
        uvloop.run(run(workdir / "data", secret_key, token, args.requests, args.rounds, args.only))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
