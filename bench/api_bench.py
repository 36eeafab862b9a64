"""API benchmark: the real server (one uvicorn process, SQLite) against a bare FastAPI ceiling.

Creates a throw-away data folder, migrates it and mints a token through the `watchpost` CLI,
bulk-inserts the sources, starts `watchpost serve` and bench/ceiling_app.py as subprocesses on
127.0.0.1, drives them with wrk (or, without wrk, an asyncio client), prints a results table
and with --write-docs rewrites the results section of docs/benchmarks.md.

Run from the repository root:  .venv/bin/python bench/api_bench.py --write-docs
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import random
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
DOCS = REPO / "docs" / "benchmarks.md"
RESULTS_START = "<!-- results:start (written by bench/api_bench.py --write-docs) -->"
RESULTS_END = "<!-- results:end -->"

HOST = "127.0.0.1"  # the only address this script ever sends requests to
PER_PAGE = 250
LIST_P99_TARGET_MS = 100.0
MIN_CEILING_RATIO = 0.25
TEAM = "bench"
SEED_BATCH = 5_000
PACKAGES = (
    "fastapi",
    "starlette",
    "uvicorn",
    "uvloop",
    "httptools",
    "pydantic",
    "sqlalchemy",
    "orjson",
    "cryptography",
)
TARGET_BODY = {
    "kind": "redis",
    "host": "cache-1.internal",
    "port": 6379,
    "username": "monitor",
    "password": "bench-only-password",
}


@dataclass(frozen=True)
class Endpoint:
    """One thing to measure: a request shape against one of the two servers."""

    name: str
    server: str  # "ceiling" or "watchpost"
    method: str
    path: str
    """For the list, the path without `page`; the page is drawn at random for each request."""
    body: bytes | None = None
    random_pages: int = 0

    def request_path(self, rng: random.Random) -> str:
        if self.random_pages:
            return f"{self.path}&page={rng.randint(1, self.random_pages)}"
        return self.path


@dataclass(frozen=True)
class Result:
    endpoint: Endpoint
    tool: str
    concurrency: int
    requests: int
    errors: int
    duration_s: float
    p50_ms: float
    p99_ms: float
    server_cpu_s: float | None
    client_cpu_s: float | None
    other_cpu_s: float | None
    """CPU time the rest of the machine used meanwhile: other load competes for the cores."""

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s else 0.0


@dataclass(frozen=True)
class Load:
    """How hard and how long each endpoint is driven."""

    tool: str
    concurrency: int
    duration_s: float
    warmup_s: float
    max_requests: int
    token: str


# ----------------------------------------------------------------------------- processes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def child_env(data_dir: Path, secret_key: str, log_level: str) -> dict[str, str]:
    """The environment of every child: this checkout's src first, our settings only."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("WATCHPOST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH", "")]))
    env["WATCHPOST_DATA_DIR"] = str(data_dir)
    env["WATCHPOST_SECRET_KEY"] = secret_key
    env["WATCHPOST_LOG_LEVEL"] = log_level
    # One token (one address) sending as fast as it can is the load test, not abuse: the rate
    # limits are off. bench/rate_limit_bench.py measures what they cost.
    env["WATCHPOST_RATE_LIMIT_PER_MINUTE"] = "0"
    env["WATCHPOST_PING_RATE_LIMIT_PER_MINUTE"] = "0"
    return env


def run_cli(args: Sequence[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "watchpost.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        raise SystemExit(f"watchpost {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


@contextmanager
def workspace(prefix: str, *, team: str = TEAM) -> Iterator[tuple[Path, str, str]]:
    """A throw-away folder with a migrated SQLite database and a token of team: yields
    (data_dir, secret_key, token) and removes the folder afterwards."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    secret_key = secrets.token_urlsafe(32)
    try:
        env = child_env(workdir / "data", secret_key, "warning")
        run_cli(["migrate"], env)
        token = run_cli(["token", "create", "--team", team], env).strip()
        yield workdir / "data", secret_key, token
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def server(cmd: Sequence[str], env: dict[str, str], log: Path, ready_url: str) -> Iterator[int]:
    """Start a server subprocess, yield its pid once ready_url answers 200, then stop it."""
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
        try:
            wait_ready(proc, ready_url, log)
            yield proc.pid
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def wait_ready(proc: subprocess.Popen[bytes], url: str, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310  (127.0.0.1 only)
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise SystemExit(f"server not ready after {timeout:.0f}s: {url}")


def http_json(
    method: str, port: int, path: str, token: str, body: object | None = None
) -> dict[str, object]:
    req = urllib.request.Request(
        f"http://{HOST}:{port}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310
        value: dict[str, object] = json.loads(resp.read())
        return value


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux /proc), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float | None:
    """CPU time all cores spent busy since boot (Linux /proc/stat), or None elsewhere."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
    except OSError:
        return None
    ticks = [int(value) for value in first[1:9]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------- seeding


def seed_sources(data_dir: Path, secret_key: str, count: int) -> float:
    """Bulk-insert count sources for the bench team with the project's models and crypto.

    Returns the seconds it took. Each source gets a unique table name and a fresh token,
    stored hashed and encrypted with the server's key, exactly as the API would keep it.
    """
    from sqlalchemy import insert, select

    from watchpost.context import AppContext
    from watchpost.crypto import hash_token, random_token
    from watchpost.settings import Settings
    from watchpost.sources import platforms
    from watchpost.sources.models import Source
    from watchpost.sources.service import TOKEN_BYTES, TOKEN_PREFIX, table_name_candidate
    from watchpost.teams.models import Team

    async def run() -> None:
        ctx = AppContext.build(Settings(data_dir=data_dir, secret_key=secret_key))
        now = ctx.clock.now()
        try:
            async with ctx.db.write_sessions() as session, session.begin():
                team_id = await session.scalar(select(Team.id).where(Team.name == TEAM))
                assert team_id is not None
                for start in range(0, count, SEED_BATCH):
                    rows = []
                    for i in range(start, min(start + SEED_BATCH, count)):
                        token = random_token(TOKEN_PREFIX, TOKEN_BYTES)
                        name = f"bench source {i}"
                        rows.append(
                            {
                                "team_id": team_id,
                                "name": name,
                                "platform": "ubuntu",
                                "source_group_id": None,
                                "table_name": table_name_candidate(team_id, name, 1),
                                "token_hash": hash_token(token),
                                "token_encrypted": ctx.box.encrypt(token),
                                "ingesting_paused": False,
                                "logs_retention": platforms.DEFAULT_LOGS_RETENTION,
                                "metrics_retention": platforms.DEFAULT_METRICS_RETENTION,
                                "live_tail_pattern": platforms.DEFAULT_LIVE_TAIL_PATTERN,
                                "created_at": now,
                                "updated_at": now,
                            }
                        )
                    await session.execute(insert(Source), rows)
        finally:
            await ctx.db.dispose()

    started = time.perf_counter()
    asyncio.run(run())
    return time.perf_counter() - started


# ----------------------------------------------------------------------------- load: wrk

WRK_SCRIPT = """
local pages = {pages}
local body = {body}
wrk.method = "{method}"
wrk.headers["Authorization"] = "Bearer {token}"
if body ~= nil then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
local counter = 0
local limit = {limit}

function init(args)
  math.randomseed({seed})
end

function request()
  counter = counter + 1
  if limit > 0 and counter > limit then
    wrk.thread:stop()
  end
  if pages > 0 then
    return wrk.format(nil, "{path}&page=" .. math.random(1, pages))
  end
  return wrk.format(nil, "{path}")
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {{"requests": %d, "duration_us": %d, "errors": %d, "p50_us": %d, "p99_us": %d}}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout + e.status,
    latency:percentile(50), latency:percentile(99)))
end
"""


def lua_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run_wrk(
    endpoint: Endpoint, port: int, load: Load, duration_s: float, workdir: Path
) -> tuple[int, int, float, tuple[float, float], float]:
    """One wrk run; returns requests, errors, seconds, (p50, p99) in ms, client CPU seconds."""
    script = workdir / f"{endpoint.server}-{endpoint.method.lower()}.lua"
    script.write_text(
        WRK_SCRIPT.format(
            pages=endpoint.random_pages,
            body=lua_string(endpoint.body.decode()) if endpoint.body else "nil",
            method=endpoint.method,
            token=load.token,
            path=endpoint.path,
            limit=load.max_requests,
            seed=secrets.randbelow(1_000_000),
        )
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{load.concurrency}",
            f"-d{max(1, round(duration_s))}s",
            "--timeout",
            "10s",
            "-s",
            str(script),
            f"http://{HOST}:{port}{endpoint.path.split('?')[0]}",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=duration_s + 60,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match = re.search(r"^WRKJSON (\{.*\})$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or match is None:
        raise SystemExit(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    stats = json.loads(match.group(1))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (
        int(stats["requests"]),
        int(stats["errors"]),
        stats["duration_us"] / 1e6,
        (stats["p50_us"] / 1000, stats["p99_us"] / 1000),
        cpu,
    )


# ----------------------------------------------------------------------------- load: asyncio


async def _python_worker(
    endpoint: Endpoint,
    port: int,
    token: str,
    deadline: float,
    budget: list[int],
    latencies: list[float],
    errors: list[int],
    rng: random.Random,
) -> None:
    """One keep-alive HTTP/1.1 connection sending requests back to back until time or budget."""
    reader, writer = await asyncio.open_connection(HOST, port)
    head = f"Host: {HOST}:{port}\r\nAuthorization: Bearer {token}\r\n"
    if endpoint.body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(endpoint.body)}\r\n"
    try:
        while budget[0] > 0 and time.perf_counter() < deadline:
            budget[0] -= 1
            request = f"{endpoint.method} {endpoint.request_path(rng)} HTTP/1.1\r\n{head}\r\n"
            started = time.perf_counter()
            writer.write(request.encode() + (endpoint.body or b""))
            header = await reader.readuntil(b"\r\n\r\n")
            status = int(header[9:12])
            length = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", header)
            if length is None:
                raise RuntimeError("response without Content-Length")
            await reader.readexactly(int(length.group(1)))
            latencies.append(time.perf_counter() - started)
            if status >= 400:
                errors[0] += 1
    finally:
        writer.close()


def run_python(
    endpoint: Endpoint, port: int, load: Load, duration_s: float
) -> tuple[int, int, float, tuple[float, float], float]:
    """The asyncio client (on uvloop when installed), in this process."""
    latencies: list[float] = []
    errors = [0]
    budget = [load.max_requests or sys.maxsize]

    async def run() -> float:
        started = time.perf_counter()
        deadline = started + duration_s
        await asyncio.gather(
            *(
                _python_worker(
                    endpoint,
                    port,
                    load.token,
                    deadline,
                    budget,
                    latencies,
                    errors,
                    random.Random(secrets.randbits(32)),
                )
                for _ in range(load.concurrency)
            )
        )
        return time.perf_counter() - started

    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    try:
        import uvloop

        loop_factory = uvloop.new_event_loop
    except ImportError:
        pass
    cpu_before = time.process_time()
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        elapsed = runner.run(run())
    cpu = time.process_time() - cpu_before
    latencies.sort()
    return (
        len(latencies),
        errors[0],
        elapsed,
        (percentile(latencies, 50), percentile(latencies, 99)),
        cpu,
    )


def percentile(sorted_seconds: list[float], pct: float) -> float:
    """Nearest-rank percentile, in milliseconds."""
    if not sorted_seconds:
        return math.nan
    rank = max(1, math.ceil(pct / 100 * len(sorted_seconds)))
    return sorted_seconds[rank - 1] * 1000


def measure(endpoint: Endpoint, port: int, pid: int, load: Load, workdir: Path) -> Result:
    """A warm-up run (discarded), then the measured run with the server's CPU time around it."""

    def once(seconds: float) -> tuple[int, int, float, tuple[float, float], float]:
        if load.tool == "wrk":
            return run_wrk(endpoint, port, load, seconds, workdir)
        return run_python(endpoint, port, load, seconds)

    if load.warmup_s > 0:
        once(load.warmup_s)
    cpu_before, busy_before = process_cpu_seconds(pid), machine_busy_seconds()
    requests, errors, seconds, (p50, p99), client_cpu = once(load.duration_s)
    cpu_after, busy_after = process_cpu_seconds(pid), machine_busy_seconds()
    server_cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after else None
    other_cpu = None
    if busy_before is not None and busy_after is not None and server_cpu is not None:
        other_cpu = max(0.0, busy_after - busy_before - server_cpu - client_cpu)
    if load.max_requests and requests >= load.max_requests:
        print(f"warning: {endpoint.name} hit --max-requests; req/s is understated", file=sys.stderr)
    return Result(
        endpoint=endpoint,
        tool=load.tool,
        concurrency=load.concurrency,
        requests=requests,
        errors=errors,
        duration_s=seconds,
        p50_ms=p50,
        p99_ms=p99,
        server_cpu_s=server_cpu,
        client_cpu_s=client_cpu,
        other_cpu_s=other_cpu,
    )


# ----------------------------------------------------------------------------- report


@dataclass(frozen=True)
class Verdict:
    ratio: float | None
    checks: list[tuple[str, bool]]

    @property
    def passed(self) -> bool:
        return all(ok for _, ok in self.checks)


def ceiling_rps(results: list[Result]) -> float:
    """The ceiling's req/s: the mean of its runs (one before, one after the endpoints)."""
    runs = [r.rps for r in results if r.endpoint.server == "ceiling"]
    return sum(runs) / len(runs)


def verdict(result: Result, ceiling: float) -> Verdict:
    if result.endpoint.server == "ceiling":
        return Verdict(None, [])
    ratio = result.rps / ceiling if ceiling else 0.0
    checks = [(f"req/s ≥ {MIN_CEILING_RATIO:.0%} of ceiling", ratio >= MIN_CEILING_RATIO)]
    if result.endpoint.random_pages:
        checks.append((f"p99 < {LIST_P99_TARGET_MS:.0f} ms", result.p99_ms < LIST_P99_TARGET_MS))
    if result.errors:
        checks.append(("no errors", False))
    return Verdict(ratio, checks)


def results_table(results: list[Result]) -> str:
    ceiling = ceiling_rps(results)
    lines = [
        "| Endpoint | Requests | Errors | Concurrency | Duration | req/s | p50 | p99 "
        "| vs ceiling | Server CPU | Client CPU | Other CPU | Targets |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        v = verdict(r, ceiling)
        targets = (
            "—"
            if v.ratio is None
            else ("PASS" if v.passed else "FAIL")
            + " ("
            + "; ".join(f"{name}: {'yes' if ok else 'no'}" for name, ok in v.checks)
            + ")"
        )
        lines.append(
            f"| {r.endpoint.name} | {r.requests:,} | {r.errors} | {r.concurrency} "
            f"| {r.duration_s:.1f} s | {r.rps:,.0f} | {r.p50_ms:.1f} ms | {r.p99_ms:.1f} ms "
            f"| {f'{r.rps / ceiling:.2f}' if v.ratio is None else f'{v.ratio:.2f}'} "
            f"| {cpu_share(r.server_cpu_s, r.duration_s)} | {cpu_share(r.client_cpu_s, r.duration_s)} "
            f"| {cpu_share(r.other_cpu_s, r.duration_s)} | {targets} |"
        )
    return "\n".join(lines)


def cpu_share(cpu_s: float | None, duration_s: float) -> str:
    """CPU time as a share of one core over the run (100% = one core busy)."""
    return "n/a" if cpu_s is None or not duration_s else f"{cpu_s / duration_s:.0%}"


def machine() -> list[tuple[str, str]]:
    cpu = platform.processor() or platform.machine()
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
        cpu = found.group(1).strip() if found else cpu
    except OSError:
        pass
    ram = "unknown"
    try:
        kb = re.search(r"^MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text(), re.MULTILINE)
        ram = f"{int(kb.group(1)) / 1024 / 1024:.1f} GiB" if kb else ram
    except OSError:
        pass
    os_name = platform.platform()
    try:
        pretty = re.search(r'^PRETTY_NAME="?([^"\n]+)', Path("/etc/os-release").read_text(), re.M)
        os_name = f"{pretty.group(1)} (kernel {platform.release()})" if pretty else os_name
    except OSError:
        pass
    import sqlite3

    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (absent)")
    versions.append(f"SQLite {sqlite3.sqlite_version}")
    return [
        ("CPU", f"{cpu}, {os.cpu_count()} logical cores"),
        ("RAM", ram),
        ("OS", os_name),
        ("Python", platform.python_version()),
        ("Packages", ", ".join(versions)),
    ]


def wrk_version() -> str:
    done = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
    return (done.stdout or done.stderr).splitlines()[0].split(" [")[0]


def report(results: list[Result], args: argparse.Namespace, notes: list[str]) -> str:
    ceiling = ceiling_rps(results)
    watched = [r for r in results if r.endpoint.server != "ceiling"]
    overall = all(verdict(r, ceiling).passed for r in watched)
    tool = results[0].tool
    lines = [
        f"Run on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with:",
        "",
        "```",
        " ".join(["python", "bench/api_bench.py", *args.argv]),
        "```",
        "",
        "| Machine | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in machine()),
        f"| Load tool | {wrk_version() if tool == 'wrk' else 'bench asyncio client (uvloop)'} |",
        "",
        f"Sources seeded: {args.sources:,}; one uvicorn process per server "
        f"(`watchpost serve{'' if args.with_engine else ' --no-engine'}`), log level "
        f"`{args.log_level}`; load average at the start {os.getloadavg()[0]:.2f}. "
        f"The ceiling is the mean of its two runs ({ceiling:,.0f} req/s). CPU columns: share of "
        "one core used by the server, the load generator and everything else on the machine.",
        "",
        results_table(results),
        "",
        f"**Overall: {'PASS' if overall else 'FAIL'}** "
        f"(list p99 < {LIST_P99_TARGET_MS:.0f} ms; every endpoint ≥ "
        f"{MIN_CEILING_RATIO:.0%} of the ceiling's req/s).",
    ]
    if notes:
        lines += ["", *(f"Note: {note}" for note in notes)]
    return "\n".join(lines)


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    start, end = text.find(RESULTS_START), text.find(RESULTS_END)
    if start < 0 or end < start:
        raise SystemExit(f"{DOCS} lacks the results markers; not rewritten")
    DOCS.write_text(text[: start + len(RESULTS_START)] + "\n\n" + section + "\n\n" + text[end:])


# ----------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="api_bench.py",
        description="Benchmark Watchpost's API (one uvicorn process, SQLite) against a bare "
        "FastAPI ceiling on 127.0.0.1.",
    )
    parser.add_argument("--sources", type=int, default=100_000, help="sources to seed")
    parser.add_argument("--concurrency", type=int, default=8, help="open connections")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per endpoint")
    parser.add_argument("--warmup", type=float, default=2.0, help="discarded seconds before each")
    parser.add_argument(
        "--max-requests",
        type=int,
        default=1_000_000,
        help="upper bound of requests per run (0: only the duration bounds it)",
    )
    parser.add_argument(
        "--tool",
        choices=("auto", "wrk", "python"),
        default="auto",
        help="load generator; auto = wrk when installed, else the asyncio client",
    )
    parser.add_argument(
        "--only",
        choices=("ceiling", "target", "list"),
        action="append",
        help="measure only these (the ceiling is always measured)",
    )
    parser.add_argument("--log-level", default="info", help="server log level (both servers)")
    parser.add_argument(
        "--write-docs", action="store_true", help="rewrite the results in docs/benchmarks.md"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary data folder")
    parser.add_argument(
        "--with-engine",
        action="store_true",
        help="run the check engine in the server too (it then probes every target the POST "
        "run created)",
    )
    return parser


def serves_list(port: int) -> bool:
    """Whether the running server has GET /api/v1/sources (built on another branch)."""
    with urllib.request.urlopen(f"http://{HOST}:{port}/openapi.json", timeout=30) as resp:
        paths = json.loads(resp.read())["paths"]
    return "get" in paths.get("/api/v1/sources", {})


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))  # this checkout's code, not whatever is installed
    notes: list[str] = []
    tool = args.tool
    if tool in ("auto", "wrk") and shutil.which("wrk") is None:
        if tool == "wrk":
            raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
        notes.append(
            "wrk is not installed, so the asyncio client was used; it needs more CPU per "
            "request and takes it from the server on a small machine (see 'Load generator')."
        )
        print(f"note: {notes[-1]}", file=sys.stderr)
    if tool == "auto":
        tool = "wrk" if shutil.which("wrk") else "python"

    wanted = set(args.only or ("target", "list"))
    workdir = Path(tempfile.mkdtemp(prefix="watchpost-bench-"))
    secret_key = secrets.token_urlsafe(32)
    env = child_env(workdir / "data", secret_key, args.log_level)
    try:
        run_cli(["migrate"], env)
        token = run_cli(["token", "create", "--team", TEAM], env)
        if args.sources:
            took = seed_sources(workdir / "data", secret_key, args.sources)
            print(f"seeded {args.sources:,} sources in {took:.1f} s", file=sys.stderr)
        load = Load(tool, args.concurrency, args.duration, args.warmup, args.max_requests, token)
        results = run_all(load, env, workdir, wanted, args.sources, notes, args.with_engine)
    finally:
        if args.keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    section = report(results, args, notes)
    print(section)
    if args.write_docs:
        write_docs(section)
        print(f"wrote {DOCS.relative_to(REPO)}", file=sys.stderr)
    return 0


def run_all(
    load: Load,
    env: dict[str, str],
    workdir: Path,
    wanted: set[str],
    sources: int,
    notes: list[str],
    with_engine: bool = False,
) -> list[Result]:
    """Both servers up side by side; the ceiling is measured first and again last, so a
    change in the machine's other load during the run shows up as a gap between the two."""
    ceiling_port, watchpost_port = free_port(), free_port()
    ceiling_cmd = [
        sys.executable,
        str(REPO / "bench" / "ceiling_app.py"),
        "--port",
        str(ceiling_port),
        "--log-level",
        env["WATCHPOST_LOG_LEVEL"],
    ]
    watchpost_cmd = [sys.executable, "-m", "watchpost.cli", "serve", "--port", str(watchpost_port)]
    if not with_engine:
        # The API alone: the targets the POST run creates are real, due at once, and the
        # engine would probe them all (thousands of checks of an unresolvable host) while
        # the list is measured. `watchpost worker` runs the engine in its own process.
        watchpost_cmd.append("--no-engine")
    with (
        server(
            ceiling_cmd, env, workdir / "ceiling.log", f"http://{HOST}:{ceiling_port}/"
        ) as c_pid,
        server(
            watchpost_cmd, env, workdir / "watchpost.log", f"http://{HOST}:{watchpost_port}/healthz"
        ) as w_pid,
    ):
        plan = [(Endpoint("ceiling (first)", "ceiling", "GET", "/"), ceiling_port, c_pid)]
        if "target" in wanted:
            created = http_json(
                "POST", watchpost_port, "/api/v1/collectors", load.token, {"name": "bench"}
            )
            data = created["data"]
            assert isinstance(data, dict)
            target = Endpoint(
                "POST /api/v1/collectors/{id}/targets",
                "watchpost",
                "POST",
                f"/api/v1/collectors/{data['id']}/targets",
                body=json.dumps(TARGET_BODY).encode(),
            )
            plan.append((target, watchpost_port, w_pid))
        if "list" in wanted and not serves_list(watchpost_port):
            notes.append("this checkout has no GET /api/v1/sources: the list was not measured.")
            print(f"note: {notes[-1]}", file=sys.stderr)
        elif "list" in wanted:
            listing = Endpoint(
                f"GET /api/v1/sources?per_page={PER_PAGE}&page=N",
                "watchpost",
                "GET",
                f"/api/v1/sources?per_page={PER_PAGE}",
                random_pages=max(1, math.ceil(sources / PER_PAGE)),
            )
            plan.append((listing, watchpost_port, w_pid))
        plan.append((Endpoint("ceiling (last)", "ceiling", "GET", "/"), ceiling_port, c_pid))
        results = []
        for endpoint, port, pid in plan:
            print(f"measuring {endpoint.name} …", file=sys.stderr)
            results.append(measure(endpoint, port, pid, load, workdir))
    return results


if __name__ == "__main__":
    sys.exit(main())
