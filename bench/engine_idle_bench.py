"""What the check engine costs between checks: 200 HTTP monitors every 30 s, CPU per minute.

Each variant (this checkout, and with `--before REV` the code of that git revision) runs one
`watchpost worker` on a SQLite file of its own, all at the same time against one nginx of the
bench's own, so a busy machine weighs on every variant alike. The monitors are seeded as
engine_bench.py seeds them (one through the service the API uses, the others bulk copies of
its row). After `--warmup` (the creation burst and its settling), the workers' CPU time
(user + system, /proc/<pid>/stat) is read over `--duration`; the result is CPU seconds per
minute, and the checks each variant finished in the window (from check_results).

`--profile` runs the workers under cProfile and prints where each spent its time.

Run from the repository root:
    .venv/bin/python bench/engine_idle_bench.py --before <rev> [--write-docs]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import pstats
import secrets
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from api_bench import child_env, machine, run_cli
from engine_bench import REPO, TEAM, cpu_of, nginx, seed_monitors, settings_for

DOCS = REPO / "docs" / "benchmarks.md"
RESULTS_START = "<!-- engine-idle:start (written by bench/engine_idle_bench.py --write-docs) -->"
RESULTS_END = "<!-- engine-idle:end -->"


@dataclass
class Variant:
    name: str
    src: Path
    env: dict[str, str]
    profile: Path | None = None
    cpu_s: float = 0.0
    checks: int = 0


def source_of(rev: str, into: Path) -> Path:
    """The src/ folder of git revision `rev`, extracted into `into`."""
    archive = subprocess.run(
        ["git", "archive", rev, "src"], cwd=REPO, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def checks_between(env: dict[str, str], t0: datetime, t1: datetime) -> int:
    """Monitor checks finished in [t0, t1) (check_results rows)."""
    from sqlalchemy import func, select

    from watchpost.context import AppContext
    from watchpost.history.models import CheckResult
    from watchpost.settings import Settings

    async def run() -> int:
        settings = settings_for(env)
        assert isinstance(settings, Settings)
        ctx = AppContext.build(settings)
        try:
            async with ctx.db.read_sessions() as session:
                found = await session.scalar(
                    select(func.count()).where(CheckResult.at >= t0, CheckResult.at < t1)
                )
        finally:
            await ctx.db.dispose()
        return int(found or 0)

    return asyncio.run(run())


def start_worker(variant: Variant, log: Path) -> subprocess.Popen[bytes]:
    """`watchpost worker` on the variant's code and database (under cProfile if asked)."""
    profiler = [] if variant.profile is None else ["-m", "cProfile", "-o", str(variant.profile)]
    return subprocess.Popen(
        [sys.executable, *profiler, "-m", "watchpost.cli", "worker"],
        env=variant.env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        cwd=REPO,
    )


def top_functions(path: Path, count: int = 25) -> str:
    """The worker's own functions by cumulative time, then everything by internal time."""
    out = io.StringIO()
    stats = pstats.Stats(str(path), stream=out)
    stats.sort_stats("cumulative").print_stats("watchpost/(engine|history|db)", count)
    stats.sort_stats("tottime").print_stats(count)
    return out.getvalue()


def measure(args: argparse.Namespace, workdir: Path) -> tuple[list[Variant], float]:
    key = secrets.token_urlsafe(32)
    sources = [("this checkout", REPO / "src")]
    if args.before:
        sources.insert(0, (f"before ({args.before})", source_of(args.before, workdir / "before")))
    variants = []
    with nginx(workdir) as port:
        for n, (name, src) in enumerate(sources):
            env = child_env(workdir / f"data-{n}", key, "warning")
            env["PYTHONPATH"] = str(src)
            run_cli(["migrate"], env)
            run_cli(["token", "create", "--team", TEAM], env)
            seed_monitors(env, args.monitors, args.interval, port)
            profile = workdir / f"worker-{n}.prof" if args.profile else None
            variants.append(Variant(name=name, src=src, env=env, profile=profile))
        procs = [start_worker(v, workdir / f"worker-{n}.log") for n, v in enumerate(variants)]
        try:
            print(f"warming up {args.warmup:.0f} s …", file=sys.stderr)
            time.sleep(args.warmup)
            for proc in procs:
                if proc.poll() is not None:
                    raise SystemExit(f"a worker exited: see the logs in {workdir}")
            t0 = datetime.now(UTC)
            args.load = os.getloadavg()[0]
            before = [cpu_of([p.pid]) for p in procs]
            print(f"measuring {args.duration:.0f} s …", file=sys.stderr)
            time.sleep(args.duration)
            after = [cpu_of([p.pid]) for p in procs]
            t1 = datetime.now(UTC)
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGINT)
            for proc in procs:
                proc.wait(timeout=60)
    for variant, start, end in zip(variants, before, after, strict=True):
        variant.cpu_s = end - start
        variant.checks = checks_between(variant.env, t0, t1)
    return variants, (t1 - t0).total_seconds()


def report(variants: Sequence[Variant], window_s: float, args: argparse.Namespace) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Run on {when} with `python bench/engine_idle_bench.py "
        + " ".join(sys.argv[1:])
        + "`: one `watchpost worker` per variant, side by side, SQLite, "
        + f"{args.monitors} `status` monitors every {args.interval} s on a local nginx, "
        + f"{args.warmup:.0f} s warm-up, {window_s:.0f} s window. Load average "
        + f"{args.load:.2f} when the window began: on a shared machine the variants' "
        + "absolute figures move with it, their ratio much less (they ran side by side).",
        "",
        "| Machine | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in machine()),
        "",
        "| variant | CPU s per minute | share of a core | checks in the window | CPU ms per check |",
        "|---|---|---|---|---|",
    ]
    for v in variants:
        per_minute = v.cpu_s * 60 / window_s
        per_check = f"{1000 * v.cpu_s / v.checks:.2f}" if v.checks else "—"
        lines.append(
            f"| {v.name} | {per_minute:.2f} | {100 * v.cpu_s / window_s:.1f}% "
            f"| {v.checks:,} | {per_check} |"
        )
    return "\n".join(lines)


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    start, end = text.index(RESULTS_START), text.index(RESULTS_END)
    DOCS.write_text(text[: start + len(RESULTS_START)] + "\n\n" + section + "\n\n" + text[end:])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="git revision to compare with, run side by side")
    parser.add_argument("--monitors", type=int, default=200)
    parser.add_argument("--interval", type=int, default=30)
    parser.add_argument("--warmup", type=float, default=45.0)
    parser.add_argument("--duration", type=float, default=120.0)
    parser.add_argument("--profile", action="store_true", help="run the workers under cProfile")
    parser.add_argument("--write-docs", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="watchpost-engine-idle-") as tmp:
        variants, window_s = measure(args, Path(tmp))
        section = report(variants, window_s, args)
        print(section)
        for v in variants:
            if v.profile is not None and v.profile.exists():
                print(f"\n## {v.name}\n{top_functions(v.profile)}")
    if args.write_docs:
        write_docs(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
