"""CPU time per list page, every list, with the ASGI app called directly (no HTTP).

Builds a throw-away SQLite database (migrations and the token through the CLI), fills one team
through the API with `--items` sources, monitors, heartbeats and manual incidents, a quarter as
many monitor and heartbeat groups, and a status page showing 250 of the monitors; then for
each list sends `--requests` page requests of 250 (pages drawn at random) one after another on
uvloop and prints the process's CPU time per request and per item, beside the sources list.
`--profile NAME` runs that list under cProfile instead and prints where the time goes.

    .venv/bin/python bench/api_lists_inprocess.py [--items 1000] [--requests 300]
        [--profile monitors]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import random
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_bench import PER_PAGE, workspace
from api_inprocess import bench_app, expect_status


def lists(items: int, page_id: str) -> dict[str, tuple[str, int]]:
    """name → (path of the list, items in it)."""
    query = f"?per_page={PER_PAGE}"
    return {
        "sources": (f"/api/v1/sources{query}", items),
        "monitors": (f"/api/v2/monitors{query}", items),
        "heartbeats": (f"/api/v2/heartbeats{query}", items),
        "incidents": (f"/api/v2/incidents{query}", items),
        "monitor-groups": (f"/api/v2/monitor-groups{query}", items),
        "heartbeat-groups": (f"/api/v2/heartbeat-groups{query}", items),
        "status-page-resources": (f"/api/v2/status-pages/{page_id}/resources{query}", 250),
    }


async def seed(expect: Callable[..., Awaitable[bytes]], items: int) -> str:
    """The team's objects, through the API; the status page's id."""

    async def many(path: str, body: Callable[[int], dict[str, object]], count: int) -> list[str]:
        made = [await expect(201, "POST", path, json.dumps(body(i)).encode()) for i in range(count)]
        return [json.loads(answer)["data"]["id"] for answer in made]

    await many("/api/v1/sources", lambda i: {"name": f"source {i}", "platform": "ubuntu"}, items)
    await many("/api/v2/monitor-groups", lambda i: {"name": f"group {i}"}, items)
    await many("/api/v2/heartbeat-groups", lambda i: {"name": f"group {i}"}, items)
    monitors = await many(
        "/api/v2/monitors", lambda i: {"url": f"https://site-{i}.example.com/health"}, items
    )
    await many("/api/v2/heartbeats", lambda i: {"name": f"nightly {i}", "period": 3600}, items)
    await many("/api/v2/incidents", lambda i: {"name": f"incident {i}", "summary": "Slow"}, items)
    page = await expect(
        201, "POST", "/api/v2/status-pages", b'{"company_name": "Bench", "subdomain": "bench"}'
    )
    page_id: str = json.loads(page)["data"]["id"]
    await many(
        f"/api/v2/status-pages/{page_id}/resources",
        lambda i: {"resource_type": "Monitor", "resource_id": int(monitors[i])},
        min(items, 250),
    )
    return page_id


async def run(data_dir: Path, secret_key: str, token: str, args: argparse.Namespace) -> None:
    app = bench_app(data_dir, secret_key)
    rng = random.Random(1)

    expect = partial(expect_status, app, token)

    page_id = await seed(expect, args.items)
    # What the server does once started (app.py, lifespan): what lives as long as the
    # process is out of the collector's reach, so no list pays for a full collection of it.
    gc.collect()
    gc.freeze()
    chosen = lists(args.items, page_id)
    names = [args.profile] if args.profile else list(chosen)
    baseline: float | None = None
    for name in names:
        path, size = chosen[name]
        pages = max(1, -(-size // PER_PAGE))

        async def one(path: str = path, pages: int = pages) -> None:
            await expect(200, "GET", f"{path}&page={rng.randint(1, pages)}")

        for _ in range(20):
            await one()
        profiler = cProfile.Profile() if args.profile else None
        started = time.process_time()
        if profiler:
            profiler.enable()
        for _ in range(args.requests):
            await one()
        if profiler:
            profiler.disable()
        per_request = (time.process_time() - started) / args.requests * 1000
        per_item = per_request / min(size, PER_PAGE) * 1000
        baseline = baseline or per_item
        print(
            f"{name:<24} {per_request:8.3f} ms CPU/request {per_item:7.2f} µs/item "
            f"({per_item / baseline:4.2f}x sources)",
            flush=True,
        )
        if profiler:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    await app.state.ctx.db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--profile", default="", help="one list's name: profile it")
    args = parser.parse_args()
    with workspace("watchpost-lists-") as (data_dir, secret_key, token):
        uvloop.run(run(data_dir, secret_key, token, args))


if __name__ == "__main__":
    main()
