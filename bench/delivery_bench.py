"""Alert delivery benchmark: a burst of incidents, and steady incidents, to one webhook.

Per backend (each on a throw-away database, requests to 127.0.0.1 only):

- `sqlite`: one `watchpost serve` process (delivery worker in-process) on a fresh SQLite file.
- `postgres`: `--workers` `watchpost worker` processes on a PostgreSQL database of the bench's
  own (created at the start, dropped at the end).

One `incident_change` webhook (on_incident_started) points at a receiver: a small aiohttp
server in a process of its own (`delivery_bench.py receive`) that answers 200 and notes each
request's arrival time (time.time()), its `webhook-id` header and the incident id of its body.
The incidents are started in the bench process, through `incidents.transitions.start` (what
POST /api/v2/incidents calls), on the same database; each commit's time.time() is kept.

- burst: `--burst` incidents, `--burst-batch` per transaction, as fast as they go; throughput is
  deliveries received / (last arrival - first arrival).
- latency: incidents at `--rate` per second for `--latency-seconds`, one per transaction, on an
  absolute schedule; latency is arrival - commit of the same incident (same machine clock).

The incidents come from the bench's process, so the delivering processes find them by their
look for work: `--poll` seconds apart (WATCHPOST_DELIVERY_POLL_INTERVAL; 0.25, what the
recorded runs used; the server's default is 1 s, and an event recorded by the delivering
process itself, as a `watchpost serve` opening its own incidents, wakes it at once).

Every event must arrive exactly once: duplicates (a webhook-id seen twice) and missing events
are counted. The ceiling is the receiver's own rate under a trivial aiohttp client loop (POSTs
of the same size at the same concurrency, from the bench process, no database).

Run from the repository root:  .venv/bin/python bench/delivery_bench.py --write-docs
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from api_bench import HOST, child_env, free_port, machine, process_cpu_seconds, run_cli
from engine_bench import (
    Profile,
    percentile,
    postgres_database,
    processes,
    profiled,
    read_status_kb,
    settings_for,
)

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "benchmarks.md"
RESULTS_START = "<!-- delivery-results:start (written by bench/delivery_bench.py --write-docs) -->"
RESULTS_END = "<!-- delivery-results:end -->"
TEAM = "bench"
RATE_TARGET = 1_000.0
P99_TARGET_S = 1.0
PG_ADMIN_URL = "postgresql://root@127.0.0.1:5432/postgres"


# ----------------------------------------------------------------------------- the receiver


def receive(port: int) -> None:
    """The receiver process: POST /hook is noted; /count, /dump (JSON lines, then cleared)."""
    from aiohttp import web

    seen: list[tuple[float, str, bytes]] = []

    async def hook(request: web.Request) -> web.Response:
        body = await request.read()
        seen.append((time.time(), request.headers.get("webhook-id", ""), body))
        return web.Response(text="ok")

    async def ceiling(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(text="ok")

    async def count(_: web.Request) -> web.Response:
        return web.Response(text=str(len(seen)))

    async def dump(_: web.Request) -> web.Response:
        rows = []
        for at, message_id, body in seen:
            data = json.loads(body)["data"]
            rows.append([at, message_id, int(data["id"])])
        seen.clear()
        return web.json_response(rows)

    app = web.Application()
    app.router.add_post("/hook", hook)
    app.router.add_post("/ceiling", ceiling)
    app.router.add_get("/count", count)
    app.router.add_post("/dump", dump)
    web.run_app(app, host=HOST, port=port, access_log=None, print=None)


def receiver_call(port: int, path: str) -> Any:
    method = "GET" if path == "/count" else "POST"
    req = urllib.request.Request(f"http://{HOST}:{port}{path}", method=method)
    with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310  (127.0.0.1 only)
        return json.loads(resp.read())


def receiver_ceiling(port: int, requests: int, concurrency: int, body: bytes) -> float:
    """The receiver's req/s under a trivial aiohttp client loop (keep-alive, `concurrency`)."""
    import aiohttp

    async def run() -> float:
        connector = aiohttp.TCPConnector(limit=concurrency)
        headers = {"Content-Type": "application/json", "webhook-id": "msg_0"}
        async with aiohttp.ClientSession(connector=connector) as session:
            left = requests

            async def loop() -> None:
                nonlocal left
                while left > 0:
                    left -= 1
                    url = f"http://{HOST}:{port}/ceiling"
                    async with session.post(url, data=body, headers=headers) as resp:
                        await resp.read()

            started = time.perf_counter()
            await asyncio.gather(*(loop() for _ in range(concurrency)))
            return requests / (time.perf_counter() - started)

    return asyncio.run(run())


# ----------------------------------------------------------------------------- seeding


def add_webhook(env: dict[str, str], url: str) -> None:
    """One incident_change webhook (on_incident_started) through the service the API calls."""
    from sqlalchemy import select

    from watchpost.db.registry import all_metadata

    all_metadata()

    from watchpost.context import AppContext
    from watchpost.teams.models import Team
    from watchpost.webhooks import service, signing
    from watchpost.webhooks.schemas import parse_webhook_create

    async def run() -> None:
        ctx = AppContext.build(settings_for(env))  # type: ignore[arg-type]
        try:
            async with ctx.db.write_sessions() as session, session.begin():
                team_id = await session.scalar(select(Team.id).where(Team.name == TEAM))
                assert team_id is not None
                body = {"url": url, "trigger_type": "incident_change", "on_incident_started": True}
                await service.create_webhook(
                    session,
                    team_id=team_id,
                    data=parse_webhook_create(body, team_name=TEAM),
                    box=ctx.box,
                    now=ctx.clock.now(),
                    signing_secret=signing.new_secret(),
                )
        finally:
            await ctx.db.dispose()

    asyncio.run(run())


async def bulk_start(session: Any, team_id: int, names: list[str], at: datetime) -> list[int]:
    """The rows `transitions.start` writes (incident, `started` entry, outbox event), for
    many incidents in one flush each: what one incident after another, each with its own
    flushes and a team lookup, costs the bench process makes a burst slower than delivery."""
    from watchpost.delivery.models import DeliveryEvent
    from watchpost.incidents.models import Incident, IncidentEvent
    from watchpost.incidents.rendering import incident_payload

    incidents = [
        Incident(
            team_id=team_id,
            name=name,
            cause="bench",
            manual=True,
            metadata_={},
            started_at=at,
            created_at=at,
            updated_at=at,
        )
        for name in names
    ]
    session.add_all(incidents)
    await session.flush()
    for incident in incidents:
        session.add(IncidentEvent(incident_id=incident.id, at=at, kind="started", text="bench"))
        session.add(
            DeliveryEvent(
                team_id=team_id,
                trigger_type="incident_change",
                event="started",
                subject_type="incident",
                subject_id=incident.id,
                payload={"event": "started", "data": incident_payload(incident, TEAM)},
                created_at=at,
            )
        )
    await session.flush()
    return [incident.id for incident in incidents]


def start_incidents(
    env: dict[str, str],
    count: int,
    *,
    batch: int,
    rate: float | None,
    label: str,
    bulk: bool = False,
) -> tuple[dict[int, float], float]:
    """Start `count` incidents (`batch` per transaction; `rate` per second on an absolute
    schedule, or as fast as they go); each incident's commit time, and the seconds taken.
    Through `transitions.start` (what POST /api/v2/incidents calls), or `bulk_start`."""
    from sqlalchemy import select

    from watchpost.context import AppContext
    from watchpost.incidents.transitions import start
    from watchpost.teams.models import Team

    committed: dict[int, float] = {}

    async def run() -> float:
        ctx = AppContext.build(settings_for(env))  # type: ignore[arg-type]
        try:
            async with ctx.db.read_sessions() as session:
                team_id = await session.scalar(select(Team.id).where(Team.name == TEAM))
            assert team_id is not None
            began = time.perf_counter()
            for first in range(0, count, batch):
                if rate:
                    delay = began + first / rate - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                async with ctx.db.write_sessions() as session, session.begin():
                    ids = []
                    names = [f"{label} {n}" for n in range(first, min(count, first + batch))]
                    if bulk:
                        ids = await bulk_start(session, team_id, names, ctx.clock.now())
                    for name in [] if bulk else names:
                        incident = await start(
                            session,
                            team_id=team_id,
                            name=name,
                            cause="bench",
                            at=ctx.clock.now(),
                            manual=True,
                        )
                        ids.append(incident.id)
                done = time.time()
                committed.update((incident_id, done) for incident_id in ids)
            return time.perf_counter() - began
        finally:
            await ctx.db.dispose()

    return committed, asyncio.run(run())


def delivery_states(env: dict[str, str]) -> dict[str, int]:
    from sqlalchemy import func, select

    from watchpost.context import AppContext
    from watchpost.delivery.models import Delivery

    async def run() -> dict[str, int]:
        ctx = AppContext.build(settings_for(env))  # type: ignore[arg-type]
        try:
            async with ctx.db.read_sessions() as session:
                rows = await session.execute(
                    select(Delivery.state, func.count()).group_by(Delivery.state)
                )
                return {state: int(n) for state, n in rows}
        finally:
            await ctx.db.dispose()

    return asyncio.run(run())


# ----------------------------------------------------------------------------- a phase


@dataclass
class Received:
    expected: int
    arrivals: list[float]
    duplicates: int
    missing: int
    latencies: list[float]
    insert_s: float
    first_commit: float

    @property
    def span_s(self) -> float:
        return max(self.arrivals) - min(self.arrivals) if len(self.arrivals) > 1 else 0.0

    @property
    def per_s(self) -> float:
        return (len(self.arrivals) - 1) / self.span_s if self.span_s else 0.0

    @property
    def end_to_end_s(self) -> float:
        """From the first commit to the last arrival."""
        return max(self.arrivals) - self.first_commit if self.arrivals else 0.0


def collect(
    port: int, committed: dict[int, float], insert_s: float, wait_s: float, settle_s: float
) -> Received:
    """Wait until every incident arrived (up to wait_s), a little more (late duplicates),
    then read the receiver's notes."""
    deadline = time.monotonic() + wait_s
    while receiver_call(port, "/count") < len(committed) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(settle_s)
    rows = receiver_call(port, "/dump")
    by_message = Counter(message_id for _, message_id, _ in rows)
    first: dict[int, float] = {}
    for at, _, incident_id in rows:
        first[incident_id] = min(at, first.get(incident_id, at))
    latencies = sorted(first[i] - committed[i] for i in committed if i in first)
    return Received(
        expected=len(committed),
        arrivals=[at for at, _, _ in rows],
        duplicates=sum(n - 1 for n in by_message.values()),
        missing=len(set(committed) - set(first)),
        latencies=latencies,
        insert_s=insert_s,
        first_commit=min(committed.values()),
    )


@dataclass
class Phase:
    backend: str
    processes: int
    backlog: Received
    burst: Received
    steady: Received
    rate: float
    cpu_burst_s: float
    peak_rss_mb: float
    states: dict[str, int]
    profile: Profile | None


def run_phase(backend: str, args: argparse.Namespace, workdir: Path, rport: int) -> Phase:
    data_dir = workdir / f"data-{backend}"
    env = child_env(data_dir, secrets.token_urlsafe(32), args.log_level)
    with database_for(backend, args.pg_admin_url) as url:
        if url:
            env["WATCHPOST_DATABASE_URL"] = url
        env["WATCHPOST_DELIVERY_POLL_INTERVAL"] = str(args.poll)
        run_cli(["migrate"], env)
        run_cli(["token", "create", "--team", TEAM], env)
        add_webhook(env, f"http://{HOST}:{rport}/hook")
        cli = [sys.executable, "-m", "watchpost.cli"]
        if backend == "sqlite":
            port = free_port()
            specs = [("serve", [*cli, "serve", "--port", str(port)])]
        else:
            specs = [(f"worker{i}", [*cli, "worker"]) for i in range(args.workers)]
        say(f"[{backend}] backlog of {args.burst:,} incidents, delivery stopped …")
        backlog_at, backlog_s = start_incidents(
            env,
            args.burst,
            batch=args.burst_batch,
            rate=None,
            label="backlog",
            bulk=args.insert == "bulk",
        )
        with processes(specs, env, workdir) as procs:
            pids = [p.pid for p in procs]
            deadline = time.monotonic() + 60
            while receiver_call(rport, "/count") == 0 and time.monotonic() < deadline:
                time.sleep(0.05)  # the profile starts with the first delivery, not at startup
            out = workdir / f"{backend}.collapsed"
            with profiled(pids[0], args.profile_seconds, out, args.profile) as profile:
                backlog = collect(rport, backlog_at, backlog_s, args.wait, 2.0)
            cpu0 = sum(process_cpu_seconds(pid) or 0.0 for pid in pids)
            say(f"[{backend}] backlog: {backlog.per_s:,.0f}/s; burst of {args.burst:,} …")
            committed, insert_s = start_incidents(
                env,
                args.burst,
                batch=args.burst_batch,
                rate=None,
                label="burst",
                bulk=args.insert == "bulk",
            )
            burst = collect(rport, committed, insert_s, args.wait, 2.0)
            cpu_burst = sum(process_cpu_seconds(pid) or 0.0 for pid in pids) - cpu0
            peak = max((read_status_kb(pid, "VmHWM") or 0) for pid in pids) / 1024
            say(f"[{backend}] burst: {burst.per_s:,.0f}/s; steady {args.rate:g}/s …")
            count = round(args.rate * args.latency_seconds)
            committed, insert_s = start_incidents(
                env, count, batch=1, rate=args.rate, label="steady"
            )
            steady = collect(rport, committed, insert_s, args.wait, 2.0)
            for proc in procs:
                if proc.popen.poll() is not None:
                    raise SystemExit(f"{proc.name} exited: see {workdir / (proc.name + '.log')}")
        states = delivery_states(env)
    return Phase(
        backend,
        len(specs),
        backlog,
        burst,
        steady,
        args.rate,
        cpu_burst,
        peak,
        states,
        profile[0] if profile else None,
    )


@contextmanager
def database_for(backend: str, admin_url: str) -> Any:
    if backend == "sqlite":
        yield ""
        return
    with postgres_database(admin_url) as url:
        yield url


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- the report


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def report(phases: list[Phase], ceiling: float, args: argparse.Namespace) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Run {when}, `{' '.join(sys.argv[1:]) or '(defaults)'}`, load average at start "
        f"{args.load:.2f}.",
        "",
        "| | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in machine()),
        "",
        f"Ceiling: the receiver answers **{ceiling:,.0f} req/s** to a trivial aiohttp client "
        f"loop ({args.concurrency} connections, same body size, no database), measured in "
        "this run.",
        "",
        "**Burst** — incidents started in transactions of "
        f"{args.burst_batch}, as fast as the bench process can:",
        "",
        "| backend | delivering processes | incidents | when inserted | inserted in | "
        "deliveries/s (first → last received) | share of ceiling | first commit → last "
        "received | duplicates | missing | target ≥ 1,000/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in phases:
        for b, when in ((p.backlog, "before delivery started"), (p.burst, "while delivering")):
            lines.append(
                f"| {p.backend} | {p.processes} | {b.expected:,} | {when} | {b.insert_s:.1f} s | "
                f"**{b.per_s:,.0f}** | {b.per_s / ceiling:.0%} | {b.end_to_end_s:.1f} s | "
                f"{b.duplicates} | {b.missing} | "
                f"{'met' if b.per_s >= RATE_TARGET else 'missed'} |"
            )
    lines += [
        "",
        "| backend | CPU of the delivering process(es) during the live burst | per delivery "
        "| peak RSS (largest process, VmHWM) |",
        "|---|---|---|---|",
    ]
    for p in phases:
        lines.append(
            f"| {p.backend} | {p.cpu_burst_s:.1f} s | "
            f"{p.cpu_burst_s / p.burst.expected * 1000:.2f} ms | {p.peak_rss_mb:.0f} MB |"
        )
    lines += [
        "",
        f"**Latency** — {phases[0].rate:g} incidents/s, one per transaction, commit → "
        "request received:",
        "",
        "| backend | incidents | p50 | p99 | max | duplicates | missing | target p99 < 1 s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for p in phases:
        s = p.steady
        lat = s.latencies
        lines.append(
            f"| {p.backend} | {s.expected:,} | {ms(percentile(lat, 50))} | "
            f"**{ms(percentile(lat, 99))}** | {ms(lat[-1] if lat else float('nan'))} | "
            f"{s.duplicates} | {s.missing} | "
            f"{'met' if percentile(lat, 99) < P99_TARGET_S else 'missed'} |"
        )
    lines += [
        "",
        "Delivery rows at the end: "
        + "; ".join(f"{p.backend} {dict(sorted(p.states.items()))}" for p in phases)
        + ".",
    ]
    for p in phases:
        if p.profile is None:
            continue
        lines += [
            "",
            f"Profile of the {p.backend} delivering process while it drained the backlog "
            f"(py-spy at 100 Hz for {args.profile_seconds} s: {p.profile.samples} samples of "
            "busy time; aiohttp is the delivery client here), innermost layer:",
            "",
            "| layer | share |",
            "|---|---|",
            *(f"| {name} | {share:.0%} |" for name, share in p.profile.layers[:8]),
            "",
            "| watchpost function (inclusive) | share |",
            "|---|---|",
            *(f"| `{name}` | {share:.0%} |" for name, share in p.profile.functions[:10]),
        ]
    return "\n".join(lines)


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    start, end = text.index(RESULTS_START), text.index(RESULTS_END)
    DOCS.write_text(text[: start + len(RESULTS_START)] + "\n\n" + section + "\n\n" + text[end:])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    recv = sub.add_parser("receive", help="run the receiver (the bench starts it)")
    recv.add_argument("--port", type=int, required=True)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--burst", type=int, default=10_000)
    parser.add_argument("--burst-batch", type=int, default=100)
    parser.add_argument(
        "--insert",
        choices=("bulk", "service"),
        default="bulk",
        help="how the burst's incidents are written: bulk_start, or transitions.start each",
    )
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--latency-seconds", type=float, default=30.0)
    parser.add_argument(
        "--poll", type=float, default=0.25, help="seconds between looks for new events"
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes on PostgreSQL")
    parser.add_argument("--concurrency", type=int, default=200, help="of the ceiling's client")
    parser.add_argument("--wait", type=float, default=180.0, help="max seconds to wait for all")
    parser.add_argument("--pg-admin-url", default=PG_ADMIN_URL)
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--profile", action="store_true", help="py-spy the backlog's drain")
    parser.add_argument("--profile-seconds", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (logs)")
    parser.add_argument("--write-docs", action="store_true")
    return parser


def run_all(args: argparse.Namespace, workdir: Path) -> str:
    """The receiver, its ceiling, then each backend's phases; the report."""
    rport = free_port()
    rcmd = [sys.executable, str(Path(__file__).resolve()), "receive", "--port", str(rport)]
    phases = []
    with processes([("receiver", rcmd)], child_env(workdir, "x", "warning"), workdir):
        deadline = time.monotonic() + 30
        while True:
            try:
                receiver_call(rport, "/count")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        # An incident's `started` body is ≈ 470 bytes: the ceiling posts as much.
        body = b'{"event":"started","data":{"id":"1","type":"incident"}}'.ljust(470)
        ceiling = receiver_ceiling(rport, 20_000, args.concurrency, body)
        say(f"receiver ceiling: {ceiling:,.0f} req/s")
        for backend in args.backends.split(","):
            phases.append(run_phase(backend, args, workdir, rport))
    return report(phases, ceiling, args)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "receive":
        receive(args.port)
        return 0
    args.load = os.getloadavg()[0]
    workdir = Path(tempfile.mkdtemp(prefix="watchpost-delivery-bench-"))
    try:
        section = run_all(args, workdir)
    finally:
        if args.keep:
            say(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(section)
    if args.write_docs:
        write_docs(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
