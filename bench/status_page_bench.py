"""Public status page benchmark: a page of `--resources` monitors with `--days` of history.

Builds a throw-away SQLite database (migrations and the token through the CLI), then through
the API: the monitors, a page (history = --days) in five sections showing each monitor with
the `history` widget, a few status reports. The history is written as the engine writes it
(history.service.record: one observation an hour per monitor) with a short incident every
ninth day per monitor, so the day bars vary.

Then, with the app called in-process (no HTTP), each public answer (the HTML page when this
checkout serves it, the Statuspage summary.json, the Atom feed, the badge) is rendered
`--requests` times one after another: its size and the process's CPU time per request (p50,
p99; the database is SQLite on the event loop, so its time is in it). Before, as the server
does once started (app.py), what lives by then is frozen out of the collector's reach. The HTML page once more
with what the public pages keep between requests dropped before each one ("nothing kept":
what a request costs after a change, and each subject's first after the hour). Unless --no-load,
`watchpost serve --no-engine` and bench/ceiling_app.py are started side by side and driven
with wrk (or the asyncio client) as bench/api_bench.py does: requests/s of each answer beside
the bare ceiling, measured first and again last.

    .venv/bin/python bench/status_page_bench.py [--resources 50] [--days 90]
        [--requests 300] [--duration 10] [--no-load] [--write-docs]
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import uvloop
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # this checkout's code

from sqlalchemy import select

from api_bench import (
    DOCS,
    HOST,
    REPO,
    Endpoint,
    Load,
    Result,
    child_env,
    cpu_share,
    free_port,
    machine,
    measure,
    percentile,
    process_cpu_seconds,
    server,
    workspace,
)
from api_inprocess import bench_app, call, expect_status
from watchpost.history.service import Observation, record
from watchpost.incidents.models import Incident
from watchpost.public_pages import bars
from watchpost.status_pages import incident_reads, kept
from watchpost.teams.models import Team

RESULTS_START = "<!-- status-page:start (written by bench/status_page_bench.py --write-docs) -->"
RESULTS_END = "<!-- status-page:end -->"
SUBDOMAIN = "bench"
SECTIONS = 5
PATHS = {
    "HTML page": f"/status/{SUBDOMAIN}",
    "summary.json": f"/status/{SUBDOMAIN}/api/v2/summary.json",
    "feed.atom": f"/status/{SUBDOMAIN}/feed.atom",
    "badge.svg": f"/status/{SUBDOMAIN}/badge.svg",
}
UNKEPT = "HTML page, nothing kept"
"""The HTML page with the tallies and strips kept between requests dropped before each one:
what the first request after a change (or each hour's first) costs."""
HTML_SIZE_AIM = 60 * 1024
RENDER_P99_AIM_MS = 20.0


@dataclass(frozen=True)
class Render:
    name: str
    path: str
    size: int
    gzipped: int
    p50_ms: float
    p99_ms: float


Expect = Callable[..., Awaitable[bytes]]


async def _created(expect: Expect, path: str, body: Mapping[str, object]) -> str:
    answer = await expect(201, "POST", path, json.dumps(body).encode())
    found: str = json.loads(answer)["data"]["id"]
    return found


async def seed(expect: Expect, resources: int, days: int) -> list[int]:
    """The monitors, the page, its sections, resources and reports; the monitors' ids."""
    monitors = [
        int(
            await _created(
                expect,
                "/api/v2/monitors",
                {"url": f"https://service-{i}.example.com/health", "pronounceable_name": f"S{i}"},
            )
        )
        for i in range(resources)
    ]
    page = await _created(
        expect,
        "/api/v2/status-pages",
        {"company_name": "Bench Inc", "subdomain": SUBDOMAIN, "history": days},
    )
    base = f"/api/v2/status-pages/{page}"
    sections = [
        await _created(expect, f"{base}/sections", {"name": f"Region {n + 1}"})
        for n in range(SECTIONS)
    ]
    shown = []
    for i, monitor in enumerate(monitors):
        body = {
            "resource_type": "Monitor",
            "resource_id": monitor,
            "public_name": f"Service {i + 1}",
            "widget_type": "history",
            "status_page_section_id": int(sections[i % SECTIONS]),
        }
        shown.append(await _created(expect, f"{base}/resources", body))
    for n in range(3):
        report = {
            "title": f"Elevated errors {n + 1}",
            "message": "We are looking into elevated error rates.",
            "affected_resources": [
                {"status_page_resource_id": shown[n % len(shown)], "status": "degraded"}
            ],
        }
        rid = await _created(expect, f"{base}/status-reports", report)
        update = {
            "message": "Resolved.",
            "affected_resources": [
                {"status_page_resource_id": shown[n % len(shown)], "status": "resolved"}
            ],
        }
        await expect(
            201,
            "POST",
            f"{base}/status-reports/{rid}/status-updates",
            json.dumps(update).encode(),
        )
    return monitors


async def write_history(app: FastAPI, monitors: list[int], days: int) -> None:
    """Hourly observations over `days` for every monitor, and an incident every 9th day."""
    ctx = app.state.ctx
    now = ctx.clock.now()
    start = (now - timedelta(days=days)).replace(minute=0, second=0, microsecond=0)
    rng = random.Random(7)
    async with ctx.db.write_sessions() as session, session.begin():
        team_id = await session.scalar(select(Team.id).where(Team.name == "bench"))
    assert team_id is not None
    hours = int((now - start).total_seconds() // 3600)
    for day in range(0, hours, 24):
        batch = [
            Observation(
                team_id=team_id,
                subject_type="monitor",
                subject_id=monitor,
                at=start + timedelta(hours=hour),
                state="up",
                valid_for_s=7200,
                latency_ms=rng.uniform(40, 400),
            )
            for hour in range(day, min(day + 24, hours + 1))
            for monitor in monitors
        ]
        async with ctx.db.write_sessions() as session, session.begin():
            await record(session, batch)
    async with ctx.db.write_sessions() as session, session.begin():
        for index, monitor in enumerate(monitors):
            for day in range(index % 9, days, 9):
                began = start + timedelta(days=day, hours=rng.randint(0, 20))
                session.add(
                    Incident(
                        team_id=team_id,
                        name="Timeout",
                        cause="Request timeout",
                        monitor_id=monitor,
                        started_at=began,
                        resolved_at=began + timedelta(minutes=rng.randint(3, 40)),
                        created_at=began,
                        updated_at=began,
                    )
                )


def forget_kept() -> None:
    """Drop what the public pages keep between requests (status_pages/kept.py's tallies,
    status_pages/incident_reads.py's incidents, public_pages/bars.py's strips)."""
    kept._prefixes.clear()
    incident_reads._reads.clear()
    bars._strips.clear()


async def render_all(app: FastAPI, token: str, requests: int) -> tuple[list[Render], list[str]]:
    """Each answer rendered `requests` times in-process: sizes and CPU per request."""
    found: list[Render] = []
    notes: list[str] = []
    for name, path in [*PATHS.items(), (UNKEPT, PATHS["HTML page"])]:
        status, body = await call(app, token, "GET", path)
        if status != 200:
            notes.append(f"{name} ({path}) answered {status}: not measured in this checkout.")
            continue
        for _ in range(min(20, requests)):
            await call(app, token, "GET", path)
        times: list[float] = []
        for _ in range(requests):
            if name == UNKEPT:
                forget_kept()
            started = time.process_time()
            await call(app, token, "GET", path)
            times.append(time.process_time() - started)
        times.sort()
        found.append(
            Render(
                name,
                path,
                len(body),
                len(gzip.compress(body)),
                percentile(times, 50),
                percentile(times, 99),
            )
        )
    return found, notes


async def build_and_render(
    data_dir: Path, secret_key: str, token: str, args: argparse.Namespace
) -> tuple[list[Render], list[str], float]:
    app = bench_app(data_dir, secret_key)
    expect = partial(expect_status, app, token)
    started = time.monotonic()
    monitors = await seed(expect, args.resources, args.days)
    await write_history(app, monitors, args.days)
    seeded = time.monotonic() - started
    # What the server does once started (app.py, lifespan; this in-process app has no
    # lifespan run): what lives as long as the process is out of the collector's reach.
    gc.collect()
    gc.freeze()
    renders, notes = await render_all(app, token, args.requests)
    await app.state.ctx.db.dispose()
    return renders, notes, seeded


def load_results(
    data_dir: Path, secret_key: str, token: str, args: argparse.Namespace, renders: list[Render]
) -> list[Result]:
    """Requests/s of each rendered answer from one `watchpost serve`, beside the ceiling."""
    tool = args.tool
    if tool == "auto":
        tool = "wrk" if shutil.which("wrk") else "python"
    load = Load(tool, args.concurrency, args.duration, args.warmup, 0, token)
    env = child_env(data_dir, secret_key, "warning")
    workdir = data_dir.parent
    ceiling_port, port = free_port(), free_port()
    ceiling_cmd = [sys.executable, str(REPO / "bench" / "ceiling_app.py"), "--port"]
    serve_cmd = [sys.executable, "-m", "watchpost.cli", "serve", "--no-engine", "--port"]
    with (
        server(
            [*ceiling_cmd, str(ceiling_port), "--log-level", "warning"],
            env,
            workdir / "ceiling.log",
            f"http://{HOST}:{ceiling_port}/",
        ) as c_pid,
        server(
            [*serve_cmd, str(port)], env, workdir / "serve.log", f"http://{HOST}:{port}/healthz"
        ) as w_pid,
    ):
        plan = [(Endpoint("ceiling (first)", "ceiling", "GET", "/"), ceiling_port, c_pid)]
        # The HTML, the heaviest, last: what it leaves queued cannot slow the others.
        served = [r for r in renders if r.name != UNKEPT]  # a server keeps what it keeps
        ordered = sorted(served, key=lambda r: r.name == "HTML page")
        plan += [(Endpoint(r.name, "watchpost", "GET", r.path), port, w_pid) for r in ordered]
        plan.append((Endpoint("ceiling (last)", "ceiling", "GET", "/"), ceiling_port, c_pid))
        results = []
        for endpoint, at_port, pid in plan:
            print(f"measuring {endpoint.name} …", file=sys.stderr)
            results.append(measure(endpoint, at_port, pid, load, workdir))
            settle(pid)
    return results


def settle(pid: int, timeout: float = 120.0) -> None:
    """Wait until the server has finished the requests a run left queued (its CPU time
    stops growing), so that the next run does not pay for them."""
    deadline = time.monotonic() + timeout
    before = process_cpu_seconds(pid)
    while before is not None and time.monotonic() < deadline:
        time.sleep(0.5)
        after = process_cpu_seconds(pid)
        if after is None or after - before < 0.02:
            return
        before = after


def report(
    renders: list[Render], results: list[Result], notes: list[str], args: argparse.Namespace
) -> str:
    lines = [
        f"Run on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: a page of {args.resources} monitors "
        f"in {SECTIONS} sections, `history` widget, {args.days} days of hourly history "
        f"(seeded in {args.seeded:.0f} s), 3 reports. Load average at the start: "
        f"{args.load_average}.",
        "",
        "| Machine | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in machine()),
        "",
        "In-process render (the ASGI app called directly; process CPU per request, "
        f"{args.requests} requests):",
        "",
        "| Answer | Size | gzip | CPU p50 | CPU p99 | Aims |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in renders:
        aims = (
            f"p99 < {RENDER_P99_AIM_MS:.0f} ms: {'yes' if r.p99_ms < RENDER_P99_AIM_MS else 'no'}"
        )
        if r.name.startswith("HTML page"):
            aims += f"; < 60 KB: {'yes' if r.size < HTML_SIZE_AIM else 'no'}"
        lines.append(
            f"| {r.name} | {r.size / 1024:.1f} KB | {r.gzipped / 1024:.1f} KB "
            f"| {r.p50_ms:.2f} ms | {r.p99_ms:.2f} ms | {aims} |"
        )
    if results:
        ceiling = [c.rps for c in results if c.endpoint.server == "ceiling"]
        mean = sum(ceiling) / len(ceiling)
        lines += [
            "",
            f"From one `watchpost serve --no-engine` process ({results[0].tool}, concurrency "
            f"{args.concurrency}, {args.duration:g} s each; the ceiling is bench/ceiling_app.py, "
            f"a constant body, measured first and last: mean {mean:,.0f} req/s):",
            "",
            "| Answer | req/s | vs ceiling | p50 | p99 | Errors | Server CPU | Other CPU "
            "| req per server CPU-second |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for run in results:
            per_cpu = f"{run.requests / run.server_cpu_s:,.0f}" if run.server_cpu_s else "—"
            lines.append(
                f"| {run.endpoint.name} | {run.rps:,.0f} | {run.rps / mean:.2f} "
                f"| {run.p50_ms:.1f} ms | {run.p99_ms:.1f} ms | {run.errors} "
                f"| {cpu_share(run.server_cpu_s, run.duration_s)} "
                f"| {cpu_share(run.other_cpu_s, run.duration_s)} | {per_cpu} |"
            )
        lines += [
            "",
            "CPU columns: share of one core over the run; Other CPU is what the rest of the "
            "machine used meanwhile (other load competes for the cores). Requests per server "
            "CPU-second is what one free core would serve, whatever the machine's other load.",
        ]
    lines += ["", *(f"Note: {note}" for note in notes)]
    return "\n".join(lines).rstrip() + "\n"


def write_docs(section: str) -> None:
    text = DOCS.read_text(encoding="utf-8")
    block = f"{RESULTS_START}\n{section}{RESULTS_END}"
    if RESULTS_START in text and RESULTS_END in text:
        head, rest = text.split(RESULTS_START, 1)
        text = head + block + rest.split(RESULTS_END, 1)[1]
    else:
        text = text.rstrip() + "\n\n# Public status pages\n\n## Results\n\n" + block + "\n"
    DOCS.write_text(text, encoding="utf-8")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=50)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--requests", type=int, default=300, help="in-process renders each")
    parser.add_argument("--no-load", action="store_true", help="skip the requests/s runs")
    parser.add_argument("--tool", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--write-docs", action="store_true")
    return parser


def main() -> None:
    args = build_parser().parse_args()
    args.load_average = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    with workspace("watchpost-status-page-") as (data_dir, secret_key, token):
        renders, notes, args.seeded = uvloop.run(
            build_and_render(data_dir, secret_key, token, args)
        )
        results = [] if args.no_load else load_results(data_dir, secret_key, token, args, renders)
    section = report(renders, results, notes, args)
    print(section)
    if args.write_docs:
        write_docs(section)
        print(f"wrote {DOCS.relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
