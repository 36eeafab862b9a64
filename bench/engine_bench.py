"""Check engine benchmark: 30,000 HTTP monitors every 30 s, and heartbeat pings as fast as wrk can.

Phases (each on a throw-away database, requests to 127.0.0.1 only):

- `sqlite`: one `watchpost serve` process (engine in-process) on a fresh SQLite file.
- `postgres`: `--workers` `watchpost worker` processes on a PostgreSQL database of the bench's
  own (created at the start, dropped at the end).
- `pings`: one `watchpost serve` on a fresh SQLite file with `--heartbeats` heartbeats created
  through the API, then `--pings` GET /api/v1/heartbeat/<token> sent by wrk (tokens rotated).

The monitors are `status` monitors of http://127.0.0.1:<port>/ok?m=<id> on an nginx of the
bench's own (Debian's package, started on a free port from a config written to the temp dir).
The first monitor is created by the service function the API calls; the others are bulk
copies of its row, so every column holds what the API would have stored (due at once, pending).

Schedule lag needs no instrumentation in the engine: every check lands in check_results with
its finish time and latency, and the engine's schedule is a pure function
(engine/schedule.py). Starting from the seeded due time, each monitor's due times are replayed
(next due = the first slot after both the due time and the finish), so a check's lag is
(finish - latency) - due. The replayed final due time is compared with the row's next_check_at.

Run from the repository root:  .venv/bin/python bench/engine_bench.py --write-docs
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from api_bench import (
    HOST,
    child_env,
    free_port,
    http_json,
    machine,
    process_cpu_seconds,
    run_cli,
    wait_ready,
    wrk_version,
)

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
DOCS = REPO / "docs" / "benchmarks.md"
RESULTS_START = "<!-- engine-results:start (written by bench/engine_bench.py --write-docs) -->"
RESULTS_END = "<!-- engine-results:end -->"

TEAM = "bench"
SEED_BATCH = 5_000
LAG_P99_TARGET_S = 1.0
MEMORY_TARGET_MB = 500.0
PINGS_TARGET_PER_S = 5_000.0
PG_ADMIN_URL = "postgresql://root@127.0.0.1:5432/postgres"

NGINX_CONF = """
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events {{ worker_connections 4096; }}
worker_rlimit_nofile 8192;
http {{
    access_log off;
    client_body_temp_path tmp;
    proxy_temp_path tmp;
    fastcgi_temp_path tmp;
    uwsgi_temp_path tmp;
    scgi_temp_path tmp;
    keepalive_requests 100000;
    server {{
        listen {host}:{port};
        location = /ok {{ default_type text/plain; return 200 "ok"; }}
        location = /nginx_status {{ stub_status; }}
        location / {{ return 404; }}
    }}
}}
"""


# ----------------------------------------------------------------------------- processes


def read_status_kb(pid: int, key: str) -> int | None:
    """A `VmHWM` / `VmRSS` line of /proc/<pid>/status, in kB (None when unreadable)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(rf"^{key}:\s*(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) if found else None


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    stop_signal: int = signal.SIGINT

    @property
    def pid(self) -> int:
        return self.popen.pid


@contextmanager
def processes(
    specs: Sequence[tuple[str, list[str]]], env: dict[str, str], logs: Path
) -> Iterator[list[Proc]]:
    """Start each (name, command); stop all (SIGINT, then kill after 20 s) on the way out."""
    started: list[Proc] = []
    try:
        for name, cmd in specs:
            out = (logs / f"{name}.log").open("wb")
            popen = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
            started.append(Proc(name, popen))
        yield started
    finally:
        for proc in started:
            if proc.popen.poll() is None:
                proc.popen.send_signal(proc.stop_signal)
        for proc in started:
            try:
                proc.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.popen.kill()
                proc.popen.wait(timeout=5)


@contextmanager
def nginx(workdir: Path, port: int = 0) -> Iterator[int]:
    """The bench's own nginx on 127.0.0.1 (on port, or a free one); yields the port."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise SystemExit("nginx is not installed (Debian: apt-get install nginx)")
    run = workdir / "nginx"
    (run / "tmp").mkdir(parents=True)
    port = port or free_port()
    conf = run / "nginx.conf"
    conf.write_text(NGINX_CONF.format(host=HOST, port=port))
    subprocess.run(
        [binary, "-p", f"{run}/", "-e", f"{run}/error.log", "-c", str(conf)],
        check=True,
        timeout=30,
    )
    try:
        deadline = time.monotonic() + 10
        while nginx_requests(port) is None:
            if time.monotonic() > deadline:
                raise SystemExit(f"nginx did not start: {(run / 'error.log').read_text()}")
            time.sleep(0.1)
        yield port
    finally:
        subprocess.run(
            [binary, "-p", f"{run}/", "-e", f"{run}/error.log", "-c", str(conf), "-s", "quit"],
            check=False,
            timeout=30,
        )


def nginx_requests(port: int) -> int | None:
    """nginx's request counter (stub_status), or None when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/nginx_status", timeout=2) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    found = re.search(r"^\s*\d+\s+\d+\s+(\d+)\s*$", text, re.MULTILINE)
    return int(found.group(1)) if found else None


def nginx_pids(workdir: Path) -> list[int]:
    """The bench nginx's master and worker pids (for their CPU time)."""
    try:
        master = int((workdir / "nginx" / "nginx.pid").read_text().strip())
    except (OSError, ValueError):
        return []
    children = Path(f"/proc/{master}/task/{master}/children")
    try:
        return [master, *(int(pid) for pid in children.read_text().split())]
    except OSError:
        return [master]


def cpu_of(pids: Sequence[int]) -> float:
    return sum(process_cpu_seconds(pid) or 0.0 for pid in pids)


# ----------------------------------------------------------------------------- databases


@contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database of the bench's own; yields its URL, drops it afterwards."""
    import psycopg

    name = f"watchpost_engine_bench_{secrets.token_hex(4)}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def settings_for(env: dict[str, str]) -> object:
    from watchpost.settings import Settings

    return Settings(
        data_dir=Path(env["WATCHPOST_DATA_DIR"]),
        secret_key=env["WATCHPOST_SECRET_KEY"],
        database_url=env.get("WATCHPOST_DATABASE_URL", ""),
    )


def seed_monitors(env: dict[str, str], count: int, interval: int, nginx_port: int) -> datetime:
    """Create one monitor through the service the API uses, bulk-copy its row count-1 times.

    Returns the time they were created: every monitor's first due time (as through the API).
    """
    from sqlalchemy import String, Table, cast, insert, literal, select, update

    from watchpost.context import AppContext
    from watchpost.monitors import service
    from watchpost.monitors.models import Monitor
    from watchpost.monitors.schemas import parse_monitor_create
    from watchpost.settings import Settings
    from watchpost.teams.models import Team

    prefix = f"http://{HOST}:{nginx_port}/ok?m="

    async def run() -> datetime:
        settings = settings_for(env)
        assert isinstance(settings, Settings)
        ctx = AppContext.build(settings)
        now = ctx.clock.now()
        try:
            async with ctx.db.write_sessions() as session, session.begin():
                team_id = await session.scalar(select(Team.id).where(Team.name == TEAM))
                assert team_id is not None
                body = {"monitor_type": "status", "url": prefix, "check_frequency": interval}
                data, values = parse_monitor_create(body, [])
                first = await service.create_monitor(
                    session, team_id=team_id, data=data, values=values, box=ctx.box, now=now
                )
                table = Monitor.__table__
                assert isinstance(table, Table)
                row = (await session.execute(select(table).where(table.c.id == first.id))).one()
                template = {k: v for k, v in row._asdict().items() if k != "id"}
                for start in range(1, count, SEED_BATCH):
                    size = min(SEED_BATCH, count - start)
                    await session.execute(insert(table), [template] * size)
                await session.execute(
                    update(Monitor).values(url=literal(prefix) + cast(Monitor.id, String))
                )
        finally:
            await ctx.db.dispose()
        return now

    return asyncio.run(run())


@dataclass
class Checks:
    """What check_results say about the measured window."""

    completed: int = 0
    lags: list[float] = field(default_factory=list)
    failures: int = 0
    overdue_at_end: int = 0
    max_overdue_s: float = 0.0
    replay_matches: int = 0
    replay_total: int = 0
    checked_once: int = 0
    first_pass_s: float = 0.0
    """Seconds from the seeding until every monitor's first check had finished."""


def analyse_checks(
    env: dict[str, str], first_due: datetime, window: tuple[datetime, datetime]
) -> Checks:
    """Replay every monitor's schedule from its first due time and measure each check's lag."""
    from sqlalchemy import select

    from watchpost.context import AppContext
    from watchpost.engine.checked_rows import MONITOR
    from watchpost.engine.schedule import next_due
    from watchpost.history.models import CheckResult
    from watchpost.monitors.models import Monitor
    from watchpost.settings import Settings

    t0, t1 = window
    out = Checks()

    async def run() -> None:
        settings = settings_for(env)
        assert isinstance(settings, Settings)
        ctx = AppContext.build(settings)
        try:
            async with ctx.db.read_sessions() as session:
                monitors = (
                    await session.execute(
                        select(Monitor.id, Monitor.check_frequency, Monitor.next_check_at)
                    )
                ).all()
                results = await session.execute(
                    select(
                        CheckResult.subject_id,
                        CheckResult.at,
                        CheckResult.latency_ms,
                        CheckResult.state,
                    )
                    .where(CheckResult.subject_type == MONITOR)
                    .order_by(CheckResult.subject_id, CheckResult.at)
                )
                by_monitor: dict[int, list[tuple[datetime, float, str]]] = {}
                for subject_id, at, latency_ms, state in results:
                    by_monitor.setdefault(subject_id, []).append((at, latency_ms or 0.0, state))
        finally:
            await ctx.db.dispose()
        for monitor_id, interval, next_check_at in monitors:
            due = first_due
            checks = by_monitor.get(monitor_id, [])
            out.checked_once += bool(checks)
            if checks:
                first = (checks[0][0] - first_due).total_seconds()
                out.first_pass_s = max(out.first_pass_s, first)
            for at, latency_ms, state in checks:
                started = at - timedelta(milliseconds=latency_ms)
                if t0 <= at < t1:
                    out.completed += 1
                    out.failures += state != "up"
                if t0 <= started < t1:
                    out.lags.append((started - due).total_seconds())
                due = next_due(MONITOR, monitor_id, interval, due=due, finished=at)
            out.replay_total += 1
            out.replay_matches += next_check_at == due
            if due < t1 - timedelta(seconds=1):
                out.overdue_at_end += 1
                out.max_overdue_s = max(out.max_overdue_s, (t1 - due).total_seconds())

    asyncio.run(run())
    return out


# ----------------------------------------------------------------------------- engine phases


@dataclass
class EngineRun:
    backend: str
    processes: int
    monitors: int
    interval: int
    window_s: float
    checks: Checks
    nginx_requests: int
    cpu_s: float
    nginx_cpu_s: float
    max_rss_mb: float
    rss_end_mb: float
    load_at_start: float
    profile: Profile | None

    @property
    def per_s(self) -> float:
        return self.checks.completed / self.window_s

    def lag(self, pct: float) -> float:
        return percentile(sorted(self.checks.lags), pct)

    @property
    def offered_per_s(self) -> float:
        return self.monitors / self.interval

    def verdicts(self) -> list[tuple[str, bool]]:
        # Sustained = at least 99% of the offered load (monitors / interval) completed.
        return [
            (f"≥ {self.offered_per_s:,.0f} checks/s", self.per_s >= self.offered_per_s * 0.99),
            (f"lag p99 < {LAG_P99_TARGET_S:g} s", self.lag(99) < LAG_P99_TARGET_S),
            (f"memory < {MEMORY_TARGET_MB:.0f} MB", self.max_rss_mb < MEMORY_TARGET_MB),
        ]


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile of sorted values."""
    if not values:
        return math.nan
    return values[max(1, math.ceil(pct / 100 * len(values))) - 1]


def run_engine_phase(
    backend: str, args: argparse.Namespace, workdir: Path, nginx_port: int, secret_key: str
) -> EngineRun:
    """Seed, start the engine process(es), warm up, measure a window, stop, analyse."""
    data_dir = workdir / f"data-{backend}"
    env = child_env(data_dir, secret_key, args.log_level)
    with contextmanager_for(backend, args.pg_admin_url) as url:
        if url:
            env["WATCHPOST_DATABASE_URL"] = url
        run_cli(["migrate"], env)
        run_cli(["token", "create", "--team", TEAM], env)
        started = time.perf_counter()
        first_due = seed_monitors(env, args.monitors, args.interval, nginx_port)
        print(
            f"[{backend}] seeded {args.monitors:,} monitors in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )
        if backend == "sqlite":
            port = free_port()
            specs = [
                ("serve", [sys.executable, "-m", "watchpost.cli", "serve", "--port", str(port)])
            ]
        else:
            specs = [
                (f"worker{i}", [sys.executable, "-m", "watchpost.cli", "worker"])
                for i in range(args.workers)
            ]
        load = os.getloadavg()[0]
        with processes(specs, env, workdir) as procs:
            if backend == "sqlite":
                wait_ready(procs[0].popen, f"http://{HOST}:{port}/healthz", workdir / "serve.log")
            pids = [p.pid for p in procs]
            print(f"[{backend}] warming up {args.warmup:.0f} s …", file=sys.stderr)
            time.sleep(args.warmup)
            for proc in procs:
                if proc.popen.poll() is not None:
                    raise SystemExit(f"{proc.name} exited: see {workdir / (proc.name + '.log')}")
            t0 = datetime.now(UTC)
            cpu0, ncpu0, req0 = (
                cpu_of(pids),
                cpu_of(nginx_pids(workdir)),
                nginx_requests(nginx_port),
            )
            print(f"[{backend}] measuring {args.duration:.0f} s …", file=sys.stderr)
            out = workdir / f"{backend}.collapsed"
            with profiled(pids[0], args.profile_seconds, out, args.profile) as profile:
                time.sleep(args.duration)
            t1 = datetime.now(UTC)
            cpu1, ncpu1, req1 = (
                cpu_of(pids),
                cpu_of(nginx_pids(workdir)),
                nginx_requests(nginx_port),
            )
            hwm = sum(read_status_kb(pid, "VmHWM") or 0 for pid in pids) / 1024
            hwm_max = max((read_status_kb(pid, "VmHWM") or 0) for pid in pids) / 1024
            rss = sum(read_status_kb(pid, "VmRSS") or 0 for pid in pids) / 1024
        checks = analyse_checks(env, first_due, (t0, t1))
    del hwm_max
    return EngineRun(
        backend=backend,
        processes=len(specs),
        monitors=args.monitors,
        interval=args.interval,
        window_s=(t1 - t0).total_seconds(),
        checks=checks,
        nginx_requests=(req1 or 0) - (req0 or 0),
        cpu_s=cpu1 - cpu0,
        nginx_cpu_s=ncpu1 - ncpu0,
        max_rss_mb=hwm,
        rss_end_mb=rss,
        load_at_start=load,
        profile=profile[0] if profile else None,
    )


@contextmanager
def contextmanager_for(backend: str, admin_url: str) -> Iterator[str]:
    """The database URL of a phase: empty (SQLite in the data folder) or a fresh PostgreSQL."""
    if backend == "sqlite":
        yield ""
        return
    with postgres_database(admin_url) as url:
        yield url


# ----------------------------------------------------------------------------- pings phase

WRK_PINGS = """
local tokens = {{{tokens}}}
local counter = 0
function request()
  counter = counter + 1
  return wrk.format("GET", "/api/v1/heartbeat/" .. tokens[(counter % #tokens) + 1])
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {{"requests": %d, "duration_us": %d, "errors": %d, "non2xx": %d, "p50_us": %d, "p99_us": %d}}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
"""


@dataclass
class PingRun:
    heartbeats: int
    requests: int
    errors: int
    non2xx: int
    duration_s: float
    p50_ms: float
    p99_ms: float
    concurrency: int
    server_cpu_s: float
    client_cpu_s: float
    max_rss_mb: float
    load_at_start: float
    profile: Profile | None
    recorded: int

    @property
    def per_s(self) -> float:
        return self.requests / self.duration_s if self.duration_s else 0.0


def wrk_pings(
    port: int, tokens: Sequence[str], concurrency: int, workdir: Path, max_s: float
) -> dict[str, float]:
    """wrk for max_s seconds (wrk stops on time only: a Lua thread:stop still waits for -d)."""
    script = workdir / "pings.lua"
    script.write_text(WRK_PINGS.format(tokens=", ".join(json.dumps(t) for t in tokens)))
    done = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{concurrency}",
            f"-d{max(1, round(max_s))}s",
            "--timeout",
            "10s",
            "-s",
            str(script),
            f"http://{HOST}:{port}/",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=max_s + 60,
    )
    match = re.search(r"^WRKJSON (\{.*\})$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or match is None:
        raise SystemExit(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    stats: dict[str, float] = json.loads(match.group(1))
    return stats


def py_spy() -> str | None:
    local = Path(sys.executable).parent / "py-spy"
    return str(local) if local.exists() else shutil.which("py-spy")


@dataclass(frozen=True)
class Profile:
    """Where a process spent its sampled time (py-spy, all threads, idle included)."""

    samples: int
    layers: list[tuple[str, float]]
    """Each sample once, in the innermost layer of its stack."""
    functions: list[tuple[str, float]]
    """Watchpost functions by inclusive share (a sample counts for every one on its stack)."""


def profile_summary(collapsed: Path, top: int = 12) -> Profile:
    """Summarise a py-spy `--format raw` file (collapsed stacks)."""
    layers: dict[str, float] = {}
    functions: dict[str, float] = {}
    samples = 0
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        samples += n
        frames = stack.split(";")
        layer = classify(frames)
        layers[layer] = layers.get(layer, 0) + n
        for name in {short(f) for f in frames if "watchpost/" in f and "cli.py" not in f}:
            functions[name] = functions.get(name, 0) + n

    def ranked(totals: dict[str, float]) -> list[tuple[str, float]]:
        best = sorted(totals.items(), key=lambda item: -item[1])[:top]
        return [(name, n / samples) for name, n in best]

    return Profile(samples, ranked(layers), ranked(functions)) if samples else Profile(0, [], [])


def short(frame: str) -> str:
    """`func (…/watchpost/engine/loop.py:12)` → `engine/loop.py: func`."""
    found = re.match(r"(.*) \((?:.*/)?watchpost/([^:]+)(?::\d+)?\)$", frame)
    return f"{found.group(2)}: {found.group(1)}" if found else frame


LAYERS = (
    ("sqlite3 (the database itself)", ("sqlite_inline.py", "sqlite3")),
    ("psycopg (PostgreSQL driver)", ("psycopg",)),
    ("SQLAlchemy ORM / Core", ("sqlalchemy/",)),
    ("aiohttp (the HTTP probes)", ("aiohttp/", "yarl/", "multidict")),
    ("watchpost code", ("watchpost/",)),
    ("FastAPI / Starlette", ("fastapi/", "starlette/")),
    ("uvicorn / httptools", ("uvicorn/", "httptools")),
    ("pydantic", ("pydantic",)),
    ("asyncio event loop", ("asyncio/", "uvloop")),
)


@contextmanager
def profiled(pid: int, seconds: int, out: Path, enabled: bool) -> Iterator[list[Profile]]:
    """py-spy the process for `seconds` while the block runs; the summary lands in the list."""
    found: list[Profile] = []
    spy = py_spy() if enabled else None
    if spy is None:
        if enabled:
            print("py-spy not found: no profile", file=sys.stderr)
        yield found
        return
    cmd = [spy, "record", "--pid", str(pid), "--duration", str(seconds), "--rate", "100"]
    cmd += ["--format", "raw", "--nonblocking", "--output", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield found
    finally:
        try:
            proc.wait(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if out.exists():
            found.append(profile_summary(out))


def classify(frames: list[str]) -> str:
    """The innermost layer a sample's stack is in (by file path), else its innermost frame."""
    for frame in reversed(frames):
        for name, markers in LAYERS:
            if any(marker in frame for marker in markers):
                return name
    return frames[-1] if frames and frames[-1] else "(no Python frame)"


def run_pings_phase(args: argparse.Namespace, workdir: Path, secret_key: str) -> PingRun:
    env = child_env(workdir / "data-pings", secret_key, args.log_level)
    run_cli(["migrate"], env)
    token = run_cli(["token", "create", "--team", TEAM], env)
    port = free_port()
    cmd = [sys.executable, "-m", "watchpost.cli", "serve", "--port", str(port)]
    with processes([("serve-pings", cmd)], env, workdir) as procs:
        pid = procs[0].pid
        wait_ready(procs[0].popen, f"http://{HOST}:{port}/healthz", workdir / "serve-pings.log")
        tokens = []
        for i in range(args.heartbeats):
            created = http_json(
                "POST", port, "/api/v2/heartbeats", token, {"name": f"bench {i}", "period": 3600}
            )
            data = created["data"]
            assert isinstance(data, dict)
            tokens.append(str(data["attributes"]["url"]).rsplit("/", 1)[1])
        # One ping each first: a pending heartbeat's first ping takes the slow path (goes up).
        for ping_token in tokens:
            with urllib.request.urlopen(f"http://{HOST}:{port}/api/v1/heartbeat/{ping_token}"):
                pass
        # A short run at full speed sizes the measured run to about --pings requests.
        calibration = wrk_pings(port, tokens, args.ping_concurrency, workdir, 5)
        rate = calibration["requests"] / (calibration["duration_us"] / 1e6)
        seconds = min(args.ping_max_seconds, max(5.0, args.pings / max(rate, 1.0)))
        load = os.getloadavg()[0]
        cpu0 = process_cpu_seconds(pid) or 0.0
        before = os.times()
        print(f"[pings] ≈ {rate:,.0f}/s: sending for {seconds:.0f} s …", file=sys.stderr)
        out = workdir / "pings.collapsed"
        with profiled(pid, args.profile_seconds, out, args.profile) as profile:
            stats = wrk_pings(port, tokens, args.ping_concurrency, workdir, seconds)
            after = os.times()
            cpu1 = process_cpu_seconds(pid) or 0.0
        hwm = (read_status_kb(pid, "VmHWM") or 0) / 1024
        recorded = heartbeats_pinged(env)
    return PingRun(
        heartbeats=args.heartbeats,
        requests=int(stats["requests"]),
        errors=int(stats["errors"]),
        non2xx=int(stats["non2xx"]),
        duration_s=stats["duration_us"] / 1e6,
        p50_ms=stats["p50_us"] / 1000,
        p99_ms=stats["p99_us"] / 1000,
        concurrency=args.ping_concurrency,
        server_cpu_s=cpu1 - cpu0,
        client_cpu_s=(after.children_user - before.children_user)
        + (after.children_system - before.children_system),
        max_rss_mb=hwm,
        load_at_start=load,
        profile=profile[0] if profile else None,
        recorded=recorded,
    )


def heartbeats_pinged(env: dict[str, str]) -> int:
    """Heartbeats that are up with a last ping (the pings were applied, not only answered)."""
    from sqlalchemy import func, select

    from watchpost.context import AppContext
    from watchpost.heartbeats.models import Heartbeat
    from watchpost.settings import Settings

    async def run() -> int:
        settings = settings_for(env)
        assert isinstance(settings, Settings)
        ctx = AppContext.build(settings)
        try:
            async with ctx.db.read_sessions() as session:
                found = await session.scalar(
                    select(func.count())
                    .select_from(Heartbeat)
                    .where(Heartbeat.status == "up", Heartbeat.last_ping_at.is_not(None))
                )
                return int(found or 0)
        finally:
            await ctx.db.dispose()

    return asyncio.run(run())


# ----------------------------------------------------------------------------- report


def share(cpu_s: float, seconds: float) -> str:
    return f"{cpu_s / seconds:.0%}" if seconds else "n/a"


def engine_table(runs: Sequence[EngineRun]) -> str:
    lines = [
        "| Backend | Processes | Monitors | Window | Checks done | Checks/s | nginx req/s "
        "| Lag p50 | Lag p99 | Lag max | Overdue at end | Failures | Engine CPU | nginx CPU "
        "| Max RSS (sum) | Targets |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        c = r.checks
        verdicts = r.verdicts()
        targets = ("PASS" if all(ok for _, ok in verdicts) else "FAIL") + (
            " (" + "; ".join(f"{name}: {'yes' if ok else 'no'}" for name, ok in verdicts) + ")"
        )
        lines.append(
            f"| {r.backend} | {r.processes} | {r.monitors:,} | {r.window_s:.0f} s "
            f"| {c.completed:,} | {r.per_s:,.0f} | {r.nginx_requests / r.window_s:,.0f} "
            f"| {r.lag(50) * 1000:,.0f} ms | {r.lag(99) * 1000:,.0f} ms "
            f"| {max(c.lags, default=math.nan) * 1000:,.0f} ms "
            f"| {c.overdue_at_end:,} (max {c.max_overdue_s:.1f} s) | {c.failures} "
            f"| {share(r.cpu_s, r.window_s)} | {share(r.nginx_cpu_s, r.window_s)} "
            f"| {r.max_rss_mb:,.0f} MB | {targets} |"
        )
    return "\n".join(lines)


def pings_table(run: PingRun) -> str:
    ok = run.per_s >= PINGS_TARGET_PER_S
    return "\n".join(
        [
            "| Heartbeats | Pings | Errors | Non-2xx | Concurrency | Duration | Pings/s | p50 "
            "| p99 | Server CPU | wrk CPU | Server max RSS | Applied | Target |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
            f"| {run.heartbeats:,} | {run.requests:,} | {run.errors} | {run.non2xx} "
            f"| {run.concurrency} | {run.duration_s:.1f} s | {run.per_s:,.0f} "
            f"| {run.p50_ms:.1f} ms | {run.p99_ms:.1f} ms "
            f"| {share(run.server_cpu_s, run.duration_s)} | {share(run.client_cpu_s, run.duration_s)} "
            f"| {run.max_rss_mb:,.0f} MB | {run.recorded:,} up "
            f"| {'PASS' if ok else 'FAIL'} (≥ {PINGS_TARGET_PER_S:,.0f}/s) |",
        ]
    )


def report(engine_runs: Sequence[EngineRun], ping_run: PingRun | None, argv: Sequence[str]) -> str:
    lines = [
        f"Run on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with:",
        "",
        "```",
        " ".join(["python", "bench/engine_bench.py", *argv]),
        "```",
        "",
        "| Machine | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in machine()),
        f"| Load tool | {wrk_version()} (pings); nginx {nginx_version()} (monitored server) |",
    ]
    if engine_runs:
        loads = ", ".join(f"{r.backend} {r.load_at_start:.2f}" for r in engine_runs)
        lines += [
            "",
            f"**Checks.** {engine_runs[0].monitors:,} `status` monitors every "
            f"{engine_runs[0].interval} s. Load average at the start of each phase: {loads}. "
            "Lag = check start (finish - latency) - due time, for the checks started in the "
            "window; 'Overdue at end' = monitors whose due time had passed by more than 1 s "
            "when the window closed, unstarted. CPU: share of one core over the window (all "
            "engine processes summed). Max RSS: VmHWM, summed over the engine processes.",
            "",
            engine_table(engine_runs),
        ]
        for r in engine_runs:
            c = r.checks
            lines.append("")
            lines.append(
                f"{r.backend}: {c.checked_once:,} of {r.monitors:,} monitors checked at least "
                f"once (every first check done {c.first_pass_s:.1f} s after seeding: the burst "
                f"of a bulk creation); schedule replay matched next_check_at for "
                f"{c.replay_matches:,} of "
                f"{c.replay_total:,}; RSS at the end {r.rss_end_mb:,.0f} MB."
            )
            if r.profile:
                what = f"the first engine process ({r.backend}) during the window"
                lines += ["", *profile_tables(what, r.profile)]
    if ping_run is not None:
        lines += [
            "",
            f"**Heartbeat pings.** Load average at the start: {ping_run.load_at_start:.2f}. "
            "GET /api/v1/heartbeat/<token>, tokens rotated, after one warm-up ping per "
            "heartbeat (the first ping of a pending heartbeat takes the slow path).",
            "",
            pings_table(ping_run),
        ]
        if ping_run.profile:
            lines += ["", *profile_tables("the server during the pings", ping_run.profile)]
    return "\n".join(lines)


def profile_tables(what: str, profile: Profile) -> list[str]:
    head = (
        f"Profile of {what} (py-spy, 100 Hz, {profile.samples:,} samples of busy threads, "
        "idle excluded). By layer, each sample counted once in the innermost layer of its "
        "stack; by Watchpost function, inclusive (a sample counts for every function on "
        "its stack):"
    )
    rows = ["| Share | Layer |", "|---:|---|"]
    rows += [f"| {value:.0%} | {name} |" for name, value in profile.layers]
    funcs = ["| Share (inclusive) | Function |", "|---:|---|"]
    funcs += [f"| {value:.0%} | `{name}` |" for name, value in profile.functions]
    return [head, "", *rows, "", *funcs]


def nginx_version() -> str:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    done = subprocess.run([binary, "-v"], capture_output=True, text=True, check=False)
    return (done.stderr or done.stdout).strip().rsplit("/", 1)[-1]


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    start, end = text.find(RESULTS_START), text.find(RESULTS_END)
    if start < 0 or end < start:
        raise SystemExit(f"{DOCS} lacks the engine results markers; not rewritten")
    DOCS.write_text(text[: start + len(RESULTS_START)] + "\n\n" + section + "\n\n" + text[end:])


# ----------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engine_bench.py",
        description="Benchmark the check engine (HTTP monitors on SQLite and PostgreSQL) and "
        "heartbeat pings, against 127.0.0.1 only.",
    )
    parser.add_argument("--monitors", type=int, default=30_000, help="HTTP monitors to seed")
    parser.add_argument("--interval", type=int, default=30, help="check_frequency in seconds")
    parser.add_argument(
        "--warmup", type=float, default=90.0, help="seconds before the window (first burst)"
    )
    parser.add_argument("--duration", type=float, default=120.0, help="seconds measured")
    parser.add_argument("--workers", type=int, default=2, help="worker processes on PostgreSQL")
    parser.add_argument("--pg-admin-url", default=PG_ADMIN_URL, help="where to create the DB")
    parser.add_argument("--heartbeats", type=int, default=1_000, help="heartbeats to ping")
    parser.add_argument(
        "--pings",
        type=int,
        default=300_000,
        help="pings to send (about: wrk runs for a time sized by a 5 s calibration run)",
    )
    parser.add_argument("--ping-concurrency", type=int, default=16, help="wrk connections")
    parser.add_argument(
        "--ping-max-seconds", type=float, default=300.0, help="upper bound of the ping run"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="py-spy the server (first engine process) while measuring",
    )
    parser.add_argument("--profile-seconds", type=int, default=20, help="py-spy duration")
    parser.add_argument(
        "--only",
        choices=("sqlite", "postgres", "pings"),
        action="append",
        help="run only these phases (default: all three)",
    )
    parser.add_argument("--log-level", default="warning", help="server log level")
    parser.add_argument(
        "--write-docs", action="store_true", help="rewrite the results in docs/benchmarks.md"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    arg_list = list(sys.argv[1:] if argv is None else argv)
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))  # this checkout's code, not whatever is installed
    phases = args.only or ["sqlite", "postgres", "pings"]
    if "pings" in phases and shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    workdir = Path(tempfile.mkdtemp(prefix="watchpost-engine-bench-"))
    secret_key = secrets.token_urlsafe(32)
    engine_runs: list[EngineRun] = []
    ping_run = None
    try:
        if "sqlite" in phases or "postgres" in phases:
            with nginx(workdir) as nginx_port:
                for backend in ("sqlite", "postgres"):
                    if backend in phases:
                        engine_runs.append(
                            run_engine_phase(backend, args, workdir, nginx_port, secret_key)
                        )
                        print(engine_table(engine_runs[-1:]), file=sys.stderr)
        if "pings" in phases:
            ping_run = run_pings_phase(args, workdir, secret_key)
    finally:
        if args.keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    section = report(engine_runs, ping_run, arg_list)
    print(section)
    if args.write_docs:
        write_docs(section)
        print(f"wrote {DOCS.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
