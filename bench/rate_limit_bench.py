"""What the rate limits cost per request, and how large a status page resource list gets.

1. CPU per request with the ASGI app called directly (bench/api_inprocess.py's harness), with
   the limits on (a limit so high it never refuses) and off (0), in alternating rounds so a
   busy machine weighs on both alike; the median round of each is printed, and the
   difference is the limiter's cost. Also the limiter alone: one `acquire` with one key and
   with 100,000 keys tracked, and the memory of 100,000 buckets.
2. A status page of 365 days of history with 250 resources: the bytes and CPU of
   `GET …/resources?per_page=250` and of one resource's GET.
3. (`--only lists`) The CPU of that list and of one resource's GET when the resources are
   monitors with a year of recorded rollups (hourly and daily, as the recorder writes them)
   and an incident every 5 days, on a UTC page (daily rollups) and on a page in a time zone with
   DST (`--timezone`, hourly rollups). `PYTHONPATH=<older checkout>/src` for a before/after.

    .venv/bin/python bench/rate_limit_bench.py [--requests 2000] [--rounds 5]
        [--only limits|sizes|lists] [--timezone Europe/Berlin] [--monitors 250]
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import uvloop
from sqlalchemy import insert, select

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_bench import workspace
from api_inprocess import bench_app, expect_status
from watchpost.clock import SystemClock
from watchpost.history.models import CheckRollup, LastObservation
from watchpost.incidents.models import Incident
from watchpost.monitors.models import Monitor
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusPageSection

NEVER = 1_000_000  # a limit no run reaches: every request goes through the limiter
App = Any


async def cpu_per_request(requests: int, one: Callable[[], Awaitable[None]]) -> float:
    """µs of process CPU per request."""
    started = time.process_time()
    for _ in range(requests):
        await one()
    return (time.process_time() - started) / requests * 1e6


async def limiter_cost(
    data_dir: Path, secret_key: str, token: str, requests: int, rounds: int
) -> None:
    apps = {
        "off": bench_app(data_dir, secret_key),
        "on": bench_app(data_dir, secret_key, per_minute=NEVER),
    }
    made = await expect_status(
        apps["off"], token, 201, "POST", "/api/v2/heartbeats", b'{"name": "bench"}'
    )
    ping = "/" + json.loads(made)["data"]["attributes"]["url"].split("/", 3)[3]
    cases: dict[str, Callable[[App], Callable[[], Awaitable[None]]]] = {
        "GET /api/v1/sources/{missing id} (token)": lambda app: (
            lambda: _void(expect_status(app, token, 404, "GET", "/api/v1/sources/999999999"))
        ),
        "GET /api/v1/heartbeat/{token} (address)": lambda app: (
            lambda: _void(expect_status(app, token, 200, "GET", ping))
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
    from watchpost.ratelimit import MAX_KEYS, RateLimiter

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
    app = bench_app(data_dir, secret_key)
    created = await expect_status(
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
    listed = await expect_status(app, token, 200, "GET", f"{url}?per_page=250")
    first = json.loads(listed)["data"][0]["id"]
    one = await expect_status(app, token, 200, "GET", f"{url}/{first}")
    started = time.process_time()
    for _ in range(10):
        await expect_status(app, token, 200, "GET", f"{url}?per_page=250")
    list_ms = (time.process_time() - started) / 10 * 1000
    one_ms = await _cpu_ms(app, token, f"{url}/{first}", 20)
    print("A status page with history 365 and 250 resources (created 400 days ago):")
    print(f"  GET …/resources?per_page=250: {len(listed):>10,} bytes, {list_ms:6.1f} ms CPU")
    print(f"  GET …/resources/{{id}}:         {len(one):>10,} bytes, {one_ms:6.1f} ms CPU")
    await app.state.ctx.db.dispose()


async def _monitor_page(
    app: App, token: str, subdomain: str, timezone: str, monitor_ids: list[int]
) -> str:
    body = json.dumps({"subdomain": subdomain, "history": 365, "timezone": timezone}).encode()
    page_id = int(
        json.loads(await expect_status(app, token, 201, "POST", "/api/v2/status-pages", body))[
            "data"
        ]["id"]
    )
    for monitor_id in monitor_ids:
        resource = json.dumps({"resource_type": "Monitor", "resource_id": monitor_id}).encode()
        await expect_status(
            app, token, 201, "POST", f"/api/v2/status-pages/{page_id}/resources", resource
        )
    return f"/api/v2/status-pages/{page_id}/resources"


async def _seed_history(app: App, monitor_ids: list[int], now: datetime) -> None:
    """400 days of rollups per monitor, up to `now`'s UTC day: a 2-hour outage (with its
    incident) every 5 days, an hour of maintenance every week; its last observation at the
    end."""
    ctx = app.state.ctx
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    async with ctx.db.write_sessions() as db, db.begin():
        team_id = await db.scalar(select(Monitor.team_id).limit(1))
        for monitor_id in monitor_ids:
            rows: list[dict[str, Any]] = []
            incidents: list[dict[str, Any]] = []
            for back in range(400, 0, -1):
                day = today - timedelta(days=back)
                outage = 3 + monitor_id % 17
                for hour in range(24):
                    down = 3600.0 if hour in (outage, outage + 1) and back % 5 == 0 else 0.0
                    maintenance = 3600.0 if back % 7 == 0 and hour == 12 else 0.0
                    rows.append(
                        _rollup(
                            team_id,
                            monitor_id,
                            "hour",
                            day + timedelta(hours=hour),
                            down,
                            maintenance,
                        )
                    )
                rows.append(
                    _rollup(
                        team_id,
                        monitor_id,
                        "day",
                        day,
                        7200.0 if back % 5 == 0 else 0.0,
                        3600.0 if back % 7 == 0 else 0.0,
                    )
                )
                if back % 5:
                    continue
                start = day + timedelta(hours=outage)
                incidents.append(
                    {
                        "team_id": team_id,
                        "name": "Down",
                        "cause": "timeout",
                        "monitor_id": monitor_id,
                        "started_at": start,
                        "resolved_at": start + timedelta(hours=2),
                        "metadata_": {},
                        "created_at": start,
                        "updated_at": start,
                    }
                )
            await db.execute(insert(CheckRollup), rows)
            await db.execute(insert(Incident), incidents)
            # The recorder keeps each subject's last observation beside its rollups: here
            # at their end, standing no longer (the monitors are paused).
            last = {"team_id": team_id, "subject_type": "monitor", "subject_id": monitor_id}
            await db.execute(
                insert(LastObservation), [last | {"at": today, "state": "up", "valid_for_s": 0.0}]
            )


def _rollup(
    team_id: int,
    monitor_id: int,
    granularity: str,
    start: datetime,
    down: float,
    maintenance: float,
) -> dict[str, Any]:
    size = 3600.0 if granularity == "hour" else 86400.0
    return {
        "team_id": team_id,
        "subject_type": "monitor",
        "subject_id": monitor_id,
        "granularity": granularity,
        "period_start": start,
        "up_s": size - down - maintenance,
        "down_s": down,
        "maintenance_s": maintenance,
        "checks": 0,
        "failures": 0,
        "latency_sum": 0.0,
        "latency_count": 0,
    }


async def _cpu_ms(app: App, token: str, path: str, times: int) -> float:
    started = time.process_time()
    for _ in range(times):
        await expect_status(app, token, 200, "GET", path)
    return (time.process_time() - started) / times * 1000


async def list_cost(
    data_dir: Path, secret_key: str, token: str, timezone: str, monitors: int, times: int
) -> None:
    app = bench_app(data_dir, secret_key)
    now = datetime.now(UTC)
    monitor_ids = []
    for n in range(monitors):
        body = json.dumps({"url": f"https://service-{n}.example", "paused": True}).encode()
        made = await expect_status(app, token, 201, "POST", "/api/v2/monitors", body)
        monitor_ids.append(int(json.loads(made)["data"]["id"]))
    await _seed_history(app, monitor_ids, now)
    print(
        f"Monitors with 400 days of rollups and an incident every 5 days, history 365, {monitors} resources:"
    )
    for zone in ("UTC", timezone):
        url = await _monitor_page(
            app, token, f"bench-{zone.lower().replace('/', '-')}", zone, monitor_ids
        )
        listed = await expect_status(app, token, 200, "GET", f"{url}?per_page=250")
        first = json.loads(listed)["data"][0]["id"]
        list_ms = await _cpu_ms(app, token, f"{url}?per_page=250", times)
        one_ms = await _cpu_ms(app, token, f"{url}/{first}", times * 5)
        print(
            f"  {zone:<16} list: {len(listed):>9,} bytes {list_ms:8.1f} ms CPU   one GET: {one_ms:7.1f} ms CPU"
        )
    await app.state.ctx.db.dispose()


async def run(data_dir: Path, secret_key: str, token: str, args: argparse.Namespace) -> None:
    only = args.only
    if only in (None, "limits"):
        await limiter_cost(data_dir, secret_key, token, args.requests, args.rounds)
        limiter_alone()
    if only in (None, "sizes"):
        await list_sizes(data_dir, secret_key, token)
    if only in (None, "lists"):
        await list_cost(data_dir, secret_key, token, args.timezone, args.monitors, args.times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2_000, help="requests per round and case")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per variant (on, off)")
    parser.add_argument(
        "--only",
        choices=["limits", "sizes", "lists"],
        help="one part (sizes and lists run on older code too, for a before/after)",
    )
    parser.add_argument("--timezone", default="Europe/Berlin", help="the second page's zone")
    parser.add_argument("--monitors", type=int, default=250, help="resources of the lists part")
    parser.add_argument("--times", type=int, default=5, help="requests measured per list")
    args = parser.parse_args()
    with workspace("watchpost-ratelimit-") as (data_dir, secret_key, token):
        uvloop.run(run(data_dir, secret_key, token, args))


if __name__ == "__main__":
    main()
