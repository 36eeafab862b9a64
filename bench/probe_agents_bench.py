"""Probe agents benchmark: one server and three `watchpost probe` agents on this machine.

3,000 `status` monitors every 30 s, each checked from three agent locations (300 results a
second into the server), beside the same monitors checked by the server's own engine alone
(100 a second), in the same run: rounds alternate `engine` and `agents` phases, each on a
fresh database of its own (PostgreSQL by default, or SQLite with `--database sqlite`).

Measured in each phase's window, after a warm-up that lets the first burst (every monitor
due at once) pass:
- results stored a second, against what the schedule asks for;
- result delay: from when a check finished (the `at` the server stores, which for an agent's
  result is the agent's own stamp) to when its `check_results` row could be read. The bench
  reads new rows every `--poll` seconds (0.2 by default; that is the resolution), so the
  measurement needs no instrumentation in the server or the agents;
- CPU (share of one core) of the server process, of each agent, of PostgreSQL's processes
  and of the bench's nginx (the checks' target);
- resident memory of the server and of each agent at the end of the window, and their peaks.

The monitors are created as in bench/engine_bench.py (one through the API's service, the rest
bulk copies of its row), against the bench's own nginx on 127.0.0.1. In the `agents` phase
their `locations` name the three agent locations and they are placed as the API would
(monitors/placement.py), so the server's engine checks none of them itself.

Run from the repository root:  .venv/bin/python bench/probe_agents_bench.py --write-docs
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from api_bench import HOST, child_env, free_port, machine, process_cpu_seconds, run_cli, wait_ready
from engine_bench import (
    TEAM,
    Proc,
    contextmanager_for,
    cpu_of,
    nginx,
    nginx_pids,
    percentile,
    processes,
    read_status_kb,
    seed_monitors,
    settings_for,
)

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "benchmarks.md"
RESULTS_START = "<!-- probe-agents-results:start (written by bench/probe_agents_bench.py) -->"
RESULTS_END = "<!-- probe-agents-results:end -->"
LOCATIONS = (("bench-us", "us"), ("bench-eu", "eu"), ("bench-as", "as"))
DELAY_P99_AIM_S = 2.0


# ----------------------------------------------------------------------------- result delays


class DelayWatch:
    """Reads new check_results rows every `poll` seconds and notes when each was first seen.

    Rows are read by id. On PostgreSQL a transaction holding a lower id can commit after a
    higher one: ids skipped over are asked for again at every poll until they show up (or
    for 30 s: a rolled-back insert leaves a gap for good)."""

    def __init__(self, url: str, data_dir: Path, poll: float) -> None:
        self.url = url
        self.data_dir = data_dir
        self.poll = poll
        self.delays: list[tuple[float, float]] = []
        """(seen, delay) in seconds: seen as time.time()."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.error: BaseException | None = None

    def __enter__(self) -> DelayWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _connect(self) -> tuple[object, str]:
        if self.url:
            import psycopg

            conn = psycopg.connect(self.url.replace("+psycopg", ""), autocommit=True)
            return conn, "%s"
        import sqlite3

        return sqlite3.connect(self.data_dir / "watchpost.db", isolation_level=None), "?"

    def _run(self) -> None:
        try:
            self._watch()
        except BaseException as exc:  # reported by the phase
            self.error = exc

    def _watch(self) -> None:
        conn, mark = self._connect()
        last = 0
        missing: dict[int, float] = {}
        cursor = conn.cursor()  # type: ignore[attr-defined]
        cursor.execute("SELECT COALESCE(MAX(id), 0) FROM check_results")
        last = int(cursor.fetchone()[0])
        while not self._stop.wait(self.poll):
            asked = sorted(missing)[:500]
            extra = f" OR id IN ({', '.join(mark for _ in asked)})" if asked else ""
            cursor.execute(
                f"SELECT id, at FROM check_results WHERE id > {mark}{extra} ORDER BY id",  # noqa: S608
                (last, *asked),
            )
            rows = cursor.fetchall()
            seen = time.time()
            for row_id, at in rows:
                missing.pop(row_id, None)
                if row_id > last:
                    missing.update((gap, seen) for gap in range(last + 1, row_id))
                    last = row_id
                stamp = at if isinstance(at, datetime) else datetime.fromisoformat(at)
                if stamp.tzinfo is None:
                    stamp = stamp.replace(tzinfo=UTC)
                self.delays.append((seen, seen - stamp.timestamp()))
            for gap in [g for g, since in missing.items() if seen - since > 30]:
                del missing[gap]
        conn.close()  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- phases


@dataclass
class Phase:
    mode: str
    """"engine" (the server's engine alone) or "agents"."""
    round: int
    window_s: float = 0.0
    expected_per_s: float = 0.0
    stored: int = 0
    delays: list[float] = field(default_factory=list)
    server_cpu_s: float = 0.0
    agent_cpu_s: list[float] = field(default_factory=list)
    postgres_cpu_s: float = 0.0
    nginx_cpu_s: float = 0.0
    server_rss_mb: float = 0.0
    server_peak_mb: float = 0.0
    agent_rss_mb: list[float] = field(default_factory=list)
    agent_stops: list[str] = field(default_factory=list)
    load_at_start: float = 0.0

    def share(self, cpu_s: float) -> float:
        return 100 * cpu_s / self.window_s if self.window_s else 0.0


def postgres_pids() -> list[int]:
    """Every PostgreSQL process on the machine (the bench's database is the busy one)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in ("postgres", "postmaster"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def place_everywhere(env: dict[str, str]) -> None:
    """Every monitor is checked from the three agent locations only, placed as the API
    places one."""
    from sqlalchemy import update

    from watchpost.context import AppContext
    from watchpost.monitors import placement
    from watchpost.monitors.models import Monitor
    from watchpost.settings import Settings

    async def run() -> None:
        settings = settings_for(env)
        assert isinstance(settings, Settings)
        ctx = AppContext.build(settings)
        try:
            async with ctx.db.write_sessions() as session, session.begin():
                names = [name for name, _ in LOCATIONS]
                # Named locations only: the hosted default `regions` (all four) would add the
                # server's own location, region us, to every monitor.
                await session.execute(update(Monitor).values(locations=names, regions=[]))
                await placement.place_all(session, now=ctx.clock.now())
        finally:
            await ctx.db.dispose()

    asyncio.run(run())


def run_phase(
    mode: str, round_: int, args: argparse.Namespace, workdir: Path, nginx_port: int
) -> Phase:
    phase = Phase(mode=mode, round=round_)
    data_dir = workdir / f"data-{mode}-{round_}"
    env = child_env(data_dir, secrets.token_urlsafe(32), args.log_level)
    logs = workdir / f"logs-{mode}-{round_}"
    logs.mkdir()
    backend = "postgres" if args.database == "postgres" else "sqlite"
    with contextmanager_for(backend, args.pg_admin_url) as url:
        if url:
            env["WATCHPOST_DATABASE_URL"] = url
        run_cli(["migrate"], env)
        run_cli(["token", "create", "--team", TEAM], env)
        seed_monitors(env, args.monitors, args.interval, nginx_port)
        tokens = []
        if mode == "agents":
            for name, region in LOCATIONS:
                run_cli(["location", "create", name, "--region", region], env)
                tokens.append(run_cli(["probe-token", "create", "--location", name], env))
            place_everywhere(env)
        where = len(tokens) or 1
        phase.expected_per_s = args.monitors * where / args.interval
        port = free_port()
        server = f"http://{HOST}:{port}"
        specs = [("serve", [sys.executable, "-m", "watchpost.cli", "serve", "--port", str(port)])]
        specs += [
            (
                f"agent-{name}",
                [sys.executable, "-m", "watchpost.cli", "probe", "--server", server],
            )
            for name, _ in LOCATIONS[: len(tokens)]
        ]
        phase.load_at_start = os.getloadavg()[0]
        with processes(specs[:1], env, logs) as (serve,):
            wait_ready(serve.popen, f"{server}/healthz", logs / "serve.log")
            agent_env = [dict(env, WATCHPOST_PROBE_TOKEN=token) for token in tokens]
            with (
                agents_running(specs[1:], agent_env, logs) as agents,
                DelayWatch(url, data_dir, args.poll) as watch,
            ):
                print(f"[{mode} {round_}] warming up {args.warmup:.0f} s …", file=sys.stderr)
                time.sleep(args.warmup)
                pids = [serve.pid, *(a.pid for a in agents)]
                for proc in [serve, *agents]:
                    if proc.popen.poll() is not None:
                        raise SystemExit(f"{proc.name} exited: see {logs / (proc.name + '.log')}")
                pg = postgres_pids() if url else []
                t0 = time.time()
                before = [process_cpu_seconds(pid) or 0.0 for pid in pids]
                pg0, ng0 = cpu_of(pg), cpu_of(nginx_pids(workdir))
                print(f"[{mode} {round_}] measuring {args.duration:.0f} s …", file=sys.stderr)
                time.sleep(args.duration)
                t1 = time.time()
                after = [process_cpu_seconds(pid) or 0.0 for pid in pids]
                phase.postgres_cpu_s = cpu_of(pg) - pg0
                phase.nginx_cpu_s = cpu_of(nginx_pids(workdir)) - ng0
                phase.server_rss_mb = (read_status_kb(serve.pid, "VmRSS") or 0) / 1024
                phase.server_peak_mb = (read_status_kb(serve.pid, "VmHWM") or 0) / 1024
                phase.agent_rss_mb = [(read_status_kb(a.pid, "VmRSS") or 0) / 1024 for a in agents]
                time.sleep(args.poll * 3)
            if watch.error is not None:
                raise SystemExit(f"reading check_results failed: {watch.error!r}")
            for name, _ in specs[1:]:
                lines = (logs / f"{name}.log").read_text().splitlines()
                phase.agent_stops += [
                    line.split(" ", 3)[-1] for line in lines if "stopped:" in line
                ]
    phase.window_s = t1 - t0
    phase.server_cpu_s = after[0] - before[0]
    phase.agent_cpu_s = [b - a for a, b in zip(before[1:], after[1:], strict=True)]
    phase.delays = sorted(d for seen, d in watch.delays if t0 <= seen < t1)
    phase.stored = len(phase.delays)
    return phase


@contextmanager
def agents_running(
    specs: Sequence[tuple[str, list[str]]], envs: Sequence[dict[str, str]], logs: Path
) -> Iterator[list[Proc]]:
    """Each agent with its own token in its environment (never on a command line)."""
    with contextlib.ExitStack() as stack:
        started = [
            stack.enter_context(processes([spec], env, logs))[0]
            for spec, env in zip(specs, envs, strict=True)
        ]
        yield started


# ----------------------------------------------------------------------------- report


def pct(values: list[float], p: float) -> str:
    return f"{percentile(values, p):.2f}" if values else "-"


def table(phases: Sequence[Phase]) -> str:
    lines = [
        "| phase | round | stored / s (asked) | delay p50 / p95 / p99 / max (s) | server CPU "
        "| agents' CPU (each) | PostgreSQL CPU | nginx CPU | server RSS (peak) MB "
        "| agents' RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in phases:
        per_s = p.stored / p.window_s if p.window_s else 0.0
        agents = " / ".join(f"{p.share(c):.0f} %" for c in p.agent_cpu_s) or "-"
        agent_rss = " / ".join(f"{m:.0f}" for m in p.agent_rss_mb) or "-"
        lines.append(
            f"| {p.mode} | {p.round} | {per_s:.0f} ({p.expected_per_s:.0f}) "
            f"| {pct(p.delays, 50)} / {pct(p.delays, 95)} / {pct(p.delays, 99)} / "
            f"{(p.delays[-1] if p.delays else float('nan')):.2f} "
            f"| {p.share(p.server_cpu_s):.0f} % | {agents} | {p.share(p.postgres_cpu_s):.0f} % "
            f"| {p.share(p.nginx_cpu_s):.0f} % | {p.server_rss_mb:.0f} ({p.server_peak_mb:.0f}) "
            f"| {agent_rss} |"
        )
    return "\n".join(lines)


def report(phases: Sequence[Phase], args: argparse.Namespace, argv: Sequence[str]) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    facts = "; ".join(f"{k}: {v}" for k, v in machine())
    agents = [p for p in phases if p.mode == "agents"]
    worst = max((percentile(p.delays, 99) for p in agents if p.delays), default=float("nan"))
    verdict = "met" if worst < DELAY_P99_AIM_S else "NOT met"
    stops = sorted({s for p in agents for s in p.agent_stops})
    return "\n".join(
        [
            f"Run {when}: `bench/probe_agents_bench.py {' '.join(argv)}`, {args.database}, "
            f"{args.monitors:,} monitors every {args.interval} s, warm-up {args.warmup:.0f} s, "
            f"window {args.duration:.0f} s, rows read every {args.poll} s. Machine: {facts}; "
            f"load average at the phases' start: "
            + ", ".join(f"{p.load_at_start:.1f}" for p in phases)
            + ".",
            "",
            table(phases),
            "",
            f"Aim: result delay p99 < {DELAY_P99_AIM_S:.0f} s with three agents — worst round "
            f"{worst:.2f} s: {verdict}. CPU is a share of one core over the window "
            "(the machine has "
            f"{os.cpu_count()}). The agents' own account when stopped: "
            + ("; ".join(f"“{s}”" for s in stops) or "none logged")
            + ".",
        ]
    )


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    start, end = text.index(RESULTS_START), text.index(RESULTS_END)
    DOCS.write_text(text[: start + len(RESULTS_START)] + "\n" + section + "\n" + text[end:])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--monitors", type=int, default=3_000)
    parser.add_argument("--interval", type=int, default=30, help="check frequency, seconds")
    parser.add_argument("--rounds", type=int, default=2, help="engine/agents pairs, interleaved")
    parser.add_argument("--only", choices=("engine", "agents"), help="one kind of phase")
    parser.add_argument("--warmup", type=float, default=75.0, help="seconds before measuring")
    parser.add_argument("--duration", type=float, default=120.0, help="measured seconds")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between row reads")
    parser.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--pg-admin-url", default="postgresql://root@127.0.0.1:5432/postgres")
    parser.add_argument("--log-level", default="WARNING")
    parser.add_argument("--write-docs", action="store_true", help="update docs/benchmarks.md")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    modes = [args.only] if args.only else ["engine", "agents"]
    phases: list[Phase] = []
    with tempfile.TemporaryDirectory(prefix="watchpost-probe-bench-") as tmp:
        workdir = Path(tmp)
        with nginx(workdir) as nginx_port:
            for round_ in range(1, args.rounds + 1):
                for mode in modes if round_ % 2 else modes[::-1]:
                    phases.append(run_phase(mode, round_, args, workdir, nginx_port))
                    print(table(phases[-1:]), file=sys.stderr)
    section = report(phases, args, argv)
    print(section)
    if args.write_docs:
        write_docs(section)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "src"))
    raise SystemExit(main())
