"""Latency of every list under 50 concurrent connections, beside the ceiling in the same run.

Starts the real server (`watchpost serve --no-engine` on its own port, or with its check
engine with --with-engine; SQLite by default,
PostgreSQL with --postgres URL), fills one team with sources, monitors, heartbeats, manual
incidents, monitor groups and a status page of manually tracked resources through the API
then drives each list with `--connections`
keep-alive connections (aiohttp, in this process) sending requests back to back for
`--duration` seconds, pages drawn at random. `/healthz` is the ceiling: a request that reads
the database and renders nothing. Prints p50/p90/p99/max, requests per second, timeouts
(`--timeout`, 5 s) and the server's CPU per request, per list.

    .venv/bin/python bench/api_lists_load.py [--port 18731] [--connections 50] [--duration 10]
        [--items 1000] [--clients 1] [--postgres postgresql://root@127.0.0.1:5432/bench]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_bench import (
    HOST,
    PER_PAGE,
    TEAM,
    child_env,
    percentile,
    process_cpu_seconds,
    run_cli,
    server,
)


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    """The list's path and query, without page."""
    pages: int


@dataclass(frozen=True)
class Outcome:
    case: Case
    latencies: list[float]
    """Seconds, sorted."""
    timeouts: int
    errors: int
    seconds: float
    server_cpu_s: float | None

    def row(self) -> str:
        done = len(self.latencies)
        cpu = (
            f"{self.server_cpu_s / done * 1000:7.2f}"
            if self.server_cpu_s is not None and done
            else "      ?"
        )
        p50, p90, p99 = (percentile(self.latencies, pct) for pct in (50, 90, 99))
        worst = self.latencies[-1] * 1000 if done else float("nan")
        ratio = p99 / p50 if p50 else float("nan")
        return (
            f"| {self.case.name} | {done / self.seconds:7.1f} | {p50:7.0f} | {p90:7.0f} "
            f"| {p99:7.0f} | {worst:7.0f} | {ratio:5.1f} | {self.timeouts} | {self.errors} "
            f"| {cpu} |"
        )


HEADER = (
    "| list | req/s | p50 ms | p90 ms | p99 ms | max ms | p99/p50 | timeouts | errors "
    "| server CPU ms/req |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


async def seed(base: str, token: str, items: int, sources: int) -> int:
    """Sources, monitors, heartbeats, incidents and groups through the API, and a status page
    showing 250 of the monitors; the status page's id."""
    headers = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(base, headers=headers) as http:

        async def post(path: str, body: dict[str, object]) -> dict[str, object]:
            async with http.post(path, json=body) as resp:
                answer: dict[str, object] = await resp.json()
                if resp.status != 201:
                    raise SystemExit(f"POST {path}: {resp.status} {answer}")
                return answer

        async def many(
            path: str, body: Callable[[int], dict[str, object]], count: int
        ) -> list[str]:
            ids: list[str] = []
            for start in range(0, count, 25):
                made = await asyncio.gather(
                    *(post(path, body(i)) for i in range(start, min(start + 25, count)))
                )
                ids += [str(answer["data"]["id"]) for answer in made]  # type: ignore[index]
            return ids

        await many("/api/v2/monitor-groups", lambda i: {"name": f"group {i}"}, items // 4)
        await many("/api/v2/heartbeat-groups", lambda i: {"name": f"group {i}"}, items // 4)
        await many(
            "/api/v1/sources",
            lambda i: {"name": f"source {i}", "platform": "ubuntu"},
            sources,
        )
        monitors = await many(
            "/api/v2/monitors",
            lambda i: {"url": f"https://site-{i}.example.com/health", "monitor_type": "status"},
            items,
        )
        await many("/api/v2/heartbeats", lambda i: {"name": f"nightly {i}", "period": 3600}, items)
        await many(
            "/api/v2/incidents",
            lambda i: {"name": f"incident {i}", "summary": "Checkout is slow"},
            items,
        )
        page = await post(
            "/api/v2/status-pages",
            {"company_name": "Bench", "subdomain": f"bench-{secrets.token_hex(4)}"},
        )
        page_id = str(page["data"]["id"])  # type: ignore[index]
        await many(
            f"/api/v2/status-pages/{page_id}/resources",
            lambda i: {"resource_type": "Monitor", "resource_id": int(monitors[i])},
            min(items, 250),
        )
        return int(page_id)


async def drive(
    base: str,
    token: str,
    case: Case,
    connections: int,
    seconds: float,
    timeout: float,
    headers: dict[str, str] | None = None,
) -> tuple[list[float], int, int, float]:
    """connections clients sending back to back for seconds; latencies, timeouts, errors.

    Errors: answers other than 200, and connections the server closed or reset. Each request
    carries the token as a bearer token, or `headers` instead when given."""
    latencies: list[float] = []
    counts = [0, 0]
    rng = random.Random(secrets.randbits(32))
    connector = aiohttp.TCPConnector(limit=connections, force_close=False)
    limit = aiohttp.ClientTimeout(total=timeout)
    if headers is None:
        headers = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(
        base, connector=connector, headers=headers, timeout=limit
    ) as http:

        async def client(deadline: float) -> None:
            while time.perf_counter() < deadline:
                sep = "&" if "?" in case.path else "?"
                path = (
                    f"{case.path}{sep}page={rng.randint(1, case.pages)}"
                    if case.pages
                    else case.path
                )
                started = time.perf_counter()
                try:
                    async with http.get(path) as resp:
                        await resp.read()
                        if resp.status != 200:
                            counts[1] += 1
                            continue
                except TimeoutError:
                    counts[0] += 1
                    continue
                except aiohttp.ClientError:  # the server closed or reset the connection
                    counts[1] += 1
                    continue
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(*(client(deadline) for _ in range(connections)))
        elapsed = time.perf_counter() - started
    latencies.sort()
    return latencies, counts[0], counts[1], elapsed


def _drive_in_process(
    base: str, token: str, case: Case, connections: int, seconds: float, timeout: float
) -> tuple[list[float], int, int, float]:
    return uvloop.run(drive(base, token, case, connections, seconds, timeout))


def _drive_all(
    base: str, token: str, case: Case, args: argparse.Namespace, seconds: float
) -> tuple[list[float], int, int, float]:
    """drive, the connections spread over --clients processes (1: this one)."""
    if args.clients <= 1:
        return _drive_in_process(base, token, case, args.connections, seconds, args.timeout)
    shares = [args.connections // args.clients] * args.clients
    shares[0] += args.connections - sum(shares)
    with ProcessPoolExecutor(args.clients) as pool:
        runs = list(
            pool.map(
                _drive_in_process,
                *zip(*((base, token, case, n, seconds, args.timeout) for n in shares), strict=True),
            )
        )
    latencies = sorted(latency for run in runs for latency in run[0])
    timeouts, errors = sum(run[1] for run in runs), sum(run[2] for run in runs)
    return latencies, timeouts, errors, max(run[3] for run in runs)


def measure(base: str, token: str, case: Case, pid: int, args: argparse.Namespace) -> Outcome:
    _drive_all(base, token, case, args, args.warmup)
    cpu_before = process_cpu_seconds(pid)
    latencies, timeouts, errors, elapsed = _drive_all(base, token, case, args, args.duration)
    cpu_after = process_cpu_seconds(pid)
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return Outcome(case, latencies, timeouts, errors, elapsed, cpu)


def cases(items: int, sources: int, page_id: int) -> list[Case]:
    def pages(count: int) -> int:
        return max(1, -(-count // PER_PAGE))

    query = f"?per_page={PER_PAGE}"
    return [
        Case("ceiling: /healthz", "/healthz", 0),
        Case("sources", f"/api/v1/sources{query}", pages(sources)),
        Case("monitors", f"/api/v2/monitors{query}", pages(items)),
        Case("heartbeats", f"/api/v2/heartbeats{query}", pages(items)),
        Case("incidents", f"/api/v2/incidents{query}", pages(items)),
        Case("monitor groups", f"/api/v2/monitor-groups{query}", pages(items // 4)),
        Case("heartbeat groups", f"/api/v2/heartbeat-groups{query}", pages(items // 4)),
        Case("status page resources", f"/api/v2/status-pages/{page_id}/resources{query}", 1),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=18731)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--only", default="", help="comma-separated list names to run")
    parser.add_argument(
        "--clients",
        type=int,
        default=1,
        help="client processes the connections are spread over (a client that cannot read "
        "the bodies as fast as they come shows as the server's tail)",
    )
    parser.add_argument(
        "--postgres", default="", help="a PostgreSQL URL (migrated; the run adds a team of its own)"
    )
    parser.add_argument(
        "--with-engine",
        action="store_true",
        help="keep the check engine in the server (it sweeps and records the seeded heartbeats)",
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="watchpost-lists-load-"))
    secret_key = secrets.token_urlsafe(32)
    try:
        env = child_env(workdir / "data", secret_key, "warning")
        if args.postgres:
            env["WATCHPOST_DATABASE_URL"] = args.postgres
        run_cli(["migrate"], env)
        token = run_cli(["token", "create", "--team", f"{TEAM}-{secrets.token_hex(3)}"], env)
        base = f"http://{HOST}:{args.port}"
        serve = [sys.executable, "-m", "watchpost.cli", "serve"]
        serve += [] if args.with_engine else ["--no-engine"]
        serve += ["--host", HOST, "--port", str(args.port)]
        with server(serve, env, workdir / "server.log", f"{base}/healthz") as pid:
            page_id = uvloop.run(seed(base, token, args.items, args.sources))
            print(
                f"{args.connections} connections, {args.duration:.0f} s per list, "
                f"{PER_PAGE} per page, {args.items} items"
            )
            print(HEADER)
            only = {name.strip() for name in args.only.split(",") if name.strip()}
            for case in cases(args.items, args.sources, page_id):
                if only and case.name not in only:
                    continue
                print(measure(base, token, case, pid, args).row(), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
