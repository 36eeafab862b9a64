"""Log ingestion benchmark: msgpack batches of 1,000 events, as logtail-python sends them, over
HTTP into one `watchpost serve` process; events/s and the server's memory over time.

One process on a throw-away folder (SQLite, the embedded logs store), rate limits and quota
off. Batches are built by logtail-python's own frame builder (`logtail.frame.create_frame`
over real LogRecords) and packed as its uploader packs them (`msgpack.packb(frame,
use_bin_type=True)`); `--batches` distinct ones are sent in turn by `--concurrency` clients
(aiohttp, keep-alive) for `--duration` seconds per phase. Requests go to 127.0.0.1 only.

Phases, in one run on the same server:
- ceiling: the same requests to a source whose ingesting is paused: the server reads the
  token and answers 202 without parsing or storing (the HTTP stack and the token lookup);
- ingest: the same requests to a live source: read, parse, build events, append durably.
Beside them, in this process: the store's own append rate (the same events, built once,
appended 1,000 at a time to an embedded store of its own) and the rate of building the events
(no store), on the native path the server takes (logs/fast_columns.py) and on the Python path,
so the ingest rate reads against what each part can do alone.

The server's resident memory (VmRSS) is sampled every 0.5 s.

Run from the repository root:  .venv/bin/python bench/logs_ingest_bench.py --write-docs
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import msgpack
from logtail.frame import create_frame
from logtail.helpers import LogtailContext

from api_bench import (
    HOST,
    REPO,
    child_env,
    free_port,
    http_json,
    machine,
    process_cpu_seconds,
    run_cli,
    server,
)

sys.path.insert(0, str(REPO / "src"))

from watchpost.logs import fast_columns
from watchpost.logs.batch import EventBatch
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.parsing import MSGPACK, build_batch, decode

DOCS = REPO / "docs" / "benchmarks.md"
RESULTS_START = (
    "<!-- logs-ingest-results:start (written by bench/logs_ingest_bench.py --write-docs) -->"
)
RESULTS_END = "<!-- logs-ingest-results:end -->"
TARGET = 100_000  # events/s into one process


def logtail_batch(size: int, number: int) -> bytes:
    """One upload of logtail-python: `size` records through its frame builder, packed as its
    uploader packs them."""
    frame = []
    for n in range(size):
        record = logging.LogRecord(
            "app.requests",
            logging.INFO if n % 10 else logging.ERROR,
            "/srv/app/handlers.py",
            120 + n % 50,
            "request %s served in %d ms",
            (f"b{number}-{n}", n % 300),
            None,
            func="handle_request",
        )
        record.request_id = f"req-{number}-{n}"
        record.user = {"id": n % 1000, "plan": "pro" if n % 3 else "free"}
        frame.append(create_frame(record, record.getMessage(), LogtailContext(), True))
    packed: bytes = msgpack.packb(frame, use_bin_type=True)
    return packed


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass
class Phase:
    name: str
    events: int = 0
    requests: int = 0
    failures: int = 0
    seconds: float = 0.0
    cpu_s: float | None = None
    drain_s: float = 0.0
    """After the clients stopped, until a search answered (it waits for what is pending)."""
    rss: list[tuple[float, int]] = field(default_factory=list)  # (seconds in, KiB)

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0


async def drive(
    name: str, port: int, pid: int, token: str, bodies: list[bytes], per_batch: int, args: Any
) -> Phase:
    phase = Phase(name)
    url = f"http://{HOST}:{port}/"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/msgpack"}
    connector = aiohttp.TCPConnector(limit=args.concurrency)
    stop_at = 0.0

    async def client(number: int, session: aiohttp.ClientSession) -> None:
        i = number
        while time.monotonic() < stop_at:
            async with session.post(url, data=bodies[i % len(bodies)], headers=headers) as answer:
                await answer.read()
                if answer.status == 202:
                    phase.events += per_batch
                    phase.requests += 1
                else:
                    phase.failures += 1
            i += args.concurrency

    async def sample(started: float) -> None:
        while time.monotonic() < stop_at:
            phase.rss.append((time.monotonic() - started, rss_kib(pid)))
            await asyncio.sleep(0.5)

    async with aiohttp.ClientSession(connector=connector) as session:
        stop_at = time.monotonic() + args.warmup
        await asyncio.gather(*(client(n, session) for n in range(args.concurrency)))
        phase.events = phase.requests = phase.failures = 0
        cpu0 = process_cpu_seconds(pid)
        started = time.monotonic()
        stop_at = started + (
            args.ceiling_duration
            if name.startswith("ceiling") and args.ceiling_duration
            else args.duration
        )
        await asyncio.gather(
            sample(started), *(client(n, session) for n in range(args.concurrency))
        )
        phase.seconds = time.monotonic() - started
        cpu1 = process_cpu_seconds(pid)
    phase.cpu_s = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    return phase


def parsed(body: bytes, received: datetime, native: bool = True) -> EventBatch:
    """A body's events as `POST /` builds them: the native path, else (or with native False)
    the Python path."""
    if native:
        fast = fast_columns.build_batch(body, source_id=1, team_id=1, received=received)
        if fast is not None:
            return fast
    return build_batch(decode(body, MSGPACK), source_id=1, team_id=1, received=received)


def parse_rate(bodies: list[bytes], seconds: float, native: bool) -> float:
    """Events/s of building a body's events alone (what ingestion does before the store), in
    this process."""
    received = datetime.now(UTC)
    done = calls = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        body = bodies[calls % len(bodies)]
        calls += 1
        done += len(parsed(body, received, native))
    return done / (time.perf_counter() - started)


async def store_rate(bodies: list[bytes], seconds: float, folder: Path) -> float:
    """Events/s of the embedded store's append alone (events built beforehand)."""
    received = datetime.now(UTC)
    batches = [parsed(body, received) for body in bodies]
    store = EmbeddedStore(folder)
    try:
        await store.append_batch(batches[0])  # opens the files
        done = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            await store.append_batch(batches[done % len(batches)])  # the same rows again
            done += 1
        elapsed = time.perf_counter() - started
        return done * len(batches[0]) / elapsed
    finally:
        await store.close()


def timeline(phase: Phase) -> str:
    points = phase.rss[:: max(1, len(phase.rss) // 8)]
    return ", ".join(f"{at:.0f} s {kib / 1024:.0f} MiB" for at, kib in points)


def thirds(phase: Phase) -> str:
    """The highest RSS in each third of the phase: flat memory reads as three like figures."""
    if len(phase.rss) < 3:
        return "n/a"
    size = len(phase.rss) // 3
    parts = [phase.rss[:size], phase.rss[size : 2 * size], phase.rss[2 * size :]]
    return ", ".join(f"{max(kib for _, kib in part) / 1024:,.0f}" for part in parts)


def report(
    phases: list[Phase],
    parse: tuple[float, float],
    store: float,
    args: Any,
    load: tuple[float, float],
) -> str:
    ceiling, ingest = phases
    lines = [
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: `bench/logs_ingest_bench.py --duration "
        f"{args.duration:g} --concurrency {args.concurrency} --batch {args.batch}"
        + (f" --ceiling-duration {args.ceiling_duration:g}" if args.ceiling_duration else "")
        + (f" --memory-limit-mb {args.memory_limit_mb}" if args.memory_limit_mb else "")
        + "`.",
        "",
        *[f"- {name}: {value}" for name, value in machine()],
        f"- Load average (1 min) at the start and the end of the run: {load[0]:.1f}, "
        f"{load[1]:.1f} (the machine's other work competes for its cores)",
        "",
        "| measure | events/s | requests/s | server CPU | server RSS over the run |",
        "|---|---|---|---|---|",
    ]
    for phase in phases:
        cpu = f"{phase.cpu_s / phase.seconds:.0%}" if phase.cpu_s and phase.seconds else "n/a"
        lines.append(
            f"| {phase.name} | {phase.rate:,.0f} | {phase.requests / phase.seconds:,.1f} | "
            f"{cpu} | {timeline(phase)} |"
        )
    searchable = ingest.events / (ingest.seconds + ingest.drain_s) if ingest.seconds else 0.0
    lines += [
        f"| ingest, until searchable (the same events over the phase plus the "
        f"{ingest.drain_s:.2f} s the first search then waited) | {searchable:,.0f} | | | |",
        f"| building the events alone, native path (what `POST /` takes; bench process) | "
        f"{parse[0]:,.0f} | | | |",
        f"| building the events alone, Python path (decode + build_batch) | {parse[1]:,.0f} "
        "| | | |",
        f"| store append alone (embedded, 1,000 a call) | {store:,.0f} | | | |",
        "",
        f"Ingest: {ingest.rate:,.0f} events/s ({ingest.rate / TARGET:.0%} of the "
        f"{TARGET:,} aim; {ingest.rate / ceiling.rate:.0%} of the same server's no-parse "
        f"ceiling); failures {ingest.failures + ceiling.failures}. The server's highest RSS "
        f"in each third of the ingest phase: {thirds(ingest)} MiB.",
    ]
    return "\n".join(lines)


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    start, end = text.find(RESULTS_START), text.find(RESULTS_END)
    if start < 0 or end < start:
        raise SystemExit(f"{DOCS} lacks the logs ingestion results markers; not rewritten")
    DOCS.write_text(text[: start + len(RESULTS_START)] + "\n\n" + section + "\n\n" + text[end:])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="logs_ingest_bench.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per phase")
    parser.add_argument(
        "--ceiling-duration", type=float, help="seconds of the ceiling phase (default: --duration)"
    )
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before each phase")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight")
    parser.add_argument("--batch", type=int, default=1000, help="events per request")
    parser.add_argument("--batches", type=int, default=20, help="distinct bodies sent in turn")
    parser.add_argument(
        "--memory-limit-mb",
        type=int,
        default=0,
        help="the server's WATCHPOST_LOGS_MEMORY_LIMIT_MB (0: its default, 1 GiB)",
    )
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    bodies = [logtail_batch(args.batch, n) for n in range(args.batches)]
    workdir = Path(tempfile.mkdtemp(prefix="wp-logs-bench-"))
    try:
        env = child_env(workdir / "data", "bench-logs-secret-key", "warning")
        env.update(
            WATCHPOST_LOGS_SOURCE_RATE_LIMIT_PER_MINUTE="0",
            WATCHPOST_LOGS_ADDRESS_RATE_LIMIT_PER_MINUTE="0",
            WATCHPOST_LOGS_DAILY_EVENT_QUOTA="0",
        )
        if args.memory_limit_mb:
            env["WATCHPOST_LOGS_MEMORY_LIMIT_MB"] = str(args.memory_limit_mb)
        run_cli(["migrate"], env)
        api_token = run_cli(["token", "create", "--team", "bench"], env)
        port = free_port()
        cmd = [sys.executable, "-m", "watchpost.cli", "serve", "--no-engine", "--port", str(port)]
        with server(cmd, env, workdir / "serve.log", f"http://{HOST}:{port}/healthz") as pid:
            tokens, ids = {}, {}
            for name, paused in (("ceiling", True), ("ingest", False)):
                body = {"name": name, "platform": "python", "ingesting_paused": paused}
                created: Any = http_json("POST", port, "/api/v1/sources", api_token, body)
                tokens[name] = created["data"]["attributes"]["token"]
                ids[name] = created["data"]["id"]
            phases = [
                asyncio.run(drive(name, port, pid, tokens[key], bodies, args.batch, args))
                for name, key in (
                    ("ceiling: same server, paused source (202, no parse, no store)", "ceiling"),
                    ("ingest: msgpack batches into the embedded store", "ingest"),
                )
            ]
            # A search finds every event acknowledged before it: the time it takes is what
            # the store still had to insert when the clients stopped.
            started = time.monotonic()
            http_json("GET", port, f"/api/v1/query?source_ids={ids['ingest']}", api_token)
            phases[1].drain_s = time.monotonic() - started
        parse = (
            parse_rate(bodies, min(args.duration, 5.0), native=True),
            parse_rate(bodies, min(args.duration, 5.0), native=False),
        )
        store = asyncio.run(store_rate(bodies, min(args.duration, 5.0), workdir / "store"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    section = report(phases, parse, store, args, (load_before, os.getloadavg()[0]))
    print(section)
    if args.write_docs:
        write_docs(section)
    return 0 if all(phase.requests for phase in phases) else 1


if __name__ == "__main__":
    raise SystemExit(main())
