"""Resident memory of `watchpost serve` (SQLite): at start, with N monitors, and once the
embedded logs store is in use.

For each `--monitors` count: a fresh data folder, N `status` monitors every 30 s on the bench's
own nginx (seeded as bench/engine_bench.py does), `watchpost serve`; VmRSS 5 s after it
answers and after `--warmup` seconds more; then after one request naming each API
collection and one console page (every lazily built route group built: http/lazy_routes.py),
what a server holds once people and scripts have used all of it. Beside them, the floor of
the stack: bench/ceiling_app.py `--stack` (FastAPI on uvicorn with SQLAlchemy's asyncio ORM,
aiosqlite, aiohttp, pydantic-settings and orjson loaded, one route, no Watchpost code). With
`--logs`, then `--batches` batches of 1,000
NDJSON log events to one source (the HTTP ingestion) and one `/api/v1/query` of them, VmRSS
after each. Uptime Kuma's memory beside it is measured by bench/peers/ (same machine, same
monitors).

    .venv/bin/python bench/serve_memory_bench.py [--monitors 200,10000] [--warmup 60] [--logs]
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from api_bench import HOST, REPO, child_env, free_port, http_json, run_cli, wait_ready
from engine_bench import nginx, processes, read_status_kb, seed_monitors


def mb(pid: int, key: str = "VmRSS") -> float:
    return (read_status_kb(pid, key) or 0) / 1024


def send_logs(port: int, token: str, batches: int) -> str:
    """batches of 1,000 events to a new source; the source's id."""
    made = http_json("POST", port, "/api/v1/sources", token, {"name": "app", "platform": "http"})[
        "data"
    ]
    assert isinstance(made, dict)
    source_token = str(made["attributes"]["token"])
    for batch in range(batches):
        lines = (
            json.dumps(
                {"dt": time.time(), "message": f"request {batch}-{i}", "status": 200 + i % 5}
            )
            for i in range(1000)
        )
        request = urllib.request.Request(
            f"http://{HOST}:{port}/",
            data="\n".join(lines).encode(),
            method="POST",
            headers={
                "Authorization": f"Bearer {source_token}",
                "Content-Type": "application/x-ndjson",
            },
        )
        with urllib.request.urlopen(request):  # noqa: S310  (127.0.0.1 only)
            pass
    return str(made["id"])


def tour(port: int, token: str) -> None:
    """A list of every collection of the API, then the console's sign-in page."""
    from watchpost.routes import API_DOMAINS

    for collection in sorted(set().union(*API_DOMAINS.values())):
        request = urllib.request.Request(
            f"http://{HOST}:{port}/api/v2/{collection}",
            headers={"Authorization": f"Bearer {token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60):  # noqa: S310  (127.0.0.1 only)
                pass
        except urllib.error.HTTPError:  # a collection of another version, or no list: built
            pass
    with urllib.request.urlopen(f"http://{HOST}:{port}/login", timeout=60):
        pass


def measure(monitors: int, args: argparse.Namespace, workdir: Path) -> list[str]:
    lines = []
    with nginx(workdir / f"nginx-{monitors}") as nginx_port:
        env = child_env(workdir / f"data-{monitors}", secrets.token_urlsafe(32), "warning")
        run_cli(["migrate"], env)
        token = run_cli(["token", "create", "--team", "bench"], env)
        if monitors:
            seed_monitors(env, monitors, 30, nginx_port)
        port = free_port()
        serve = [sys.executable, "-m", "watchpost.cli", "serve", "--port", str(port)]
        with processes([("serve", serve)], env, workdir) as (proc,):
            wait_ready(proc.popen, f"http://{HOST}:{port}/healthz", workdir / "serve.log")
            time.sleep(5)
            lines.append(f"| {monitors:,} | at start | {mb(proc.pid):.0f} MB |")
            time.sleep(args.warmup)
            peak = mb(proc.pid, "VmHWM")
            lines.append(
                f"| {monitors:,} | after {args.warmup + 5:.0f} s | {mb(proc.pid):.0f} MB "
                f"(peak {peak:.0f}) |"
            )
            tour(port, token)
            time.sleep(5)
            lines.append(
                f"| {monitors:,} | after every API domain and the console are built "
                f"| {mb(proc.pid):.0f} MB (peak {mb(proc.pid, 'VmHWM'):.0f}) |"
            )
            if args.logs:
                source = send_logs(port, token, args.batches)
                time.sleep(5)
                events = f"{args.batches * 1000:,}"
                lines.append(
                    f"| {monitors:,} | after {events} log events | {mb(proc.pid):.0f} MB |"
                )
                http_json("GET", port, f"/api/v1/query?source_ids={source}&limit=100", token)
                peak = mb(proc.pid, "VmHWM")
                lines.append(
                    f"| {monitors:,} | after a log query | {mb(proc.pid):.0f} MB (peak {peak:.0f}) |"
                )
    return lines


def floor(workdir: Path) -> str:
    """The stack's floor: bench/ceiling_app.py --stack, 5 s after it answers."""
    env = child_env(workdir / "floor", secrets.token_urlsafe(32), "warning")
    port = free_port()
    app = [sys.executable, str(REPO / "bench" / "ceiling_app.py"), "--stack", "--port", str(port)]
    app += ["--log-level", "warning"]
    with processes([("floor", app)], env, workdir) as (proc,):
        wait_ready(proc.popen, f"http://{HOST}:{port}/", workdir / "floor.log")
        time.sleep(5)
        return f"| 0 | the stack alone (bench/ceiling_app.py --stack) | {mb(proc.pid):.0f} MB |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--monitors", default="200,10000", help="comma-separated counts")
    parser.add_argument("--warmup", type=float, default=60.0)
    parser.add_argument("--logs", action="store_true", help="then use the embedded logs store")
    parser.add_argument("--batches", type=int, default=20, help="log batches of 1,000 events")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="watchpost-memory-"))
    print("| monitors | when | resident memory |\n|---:|---|---:|")
    try:
        print(floor(workdir), flush=True)
        for count in (int(part) for part in args.monitors.split(",")):
            for line in measure(count, args, workdir):
                print(line, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
