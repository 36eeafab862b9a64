"""Peer benchmark: Watchpost beside Healthchecks and Uptime Kuma on this machine, in the same
run, in interleaved rounds (Watchpost, peer, then peer, Watchpost, …), each round's figures
printed with the per-round ratios and the medians.

Parts (`--only` picks one):
- pings: 50 keep-alive connections (`--connections`) pinging one Watchpost heartbeat
  (`GET /api/v1/heartbeat/<token>`) and one Healthchecks check (`GET /ping/<uuid>`) for
  `--duration` s after a `--warmup`: pings/s, p50/p99, server CPU per ping. Watchpost on
  SQLite, and on PostgreSQL with `--postgres`; Healthchecks on SQLite.
- lists: the same connections on Watchpost's heartbeat list (`per_page=250`, 250 heartbeats)
  and Healthchecks' `GET /api/v3/checks/` (250 checks, X-Api-Key), engines running: req/s,
  p50, p99, p99/p50.
- engine: N HTTP monitors every 30 s (`--monitors`, default 200,1000) against one nginx of the
  bench's own, Watchpost's `watchpost serve` beside Uptime Kuma: the time until every monitor
  has a first check (capped by `--start-cap`), then CPU and resident memory over `--window` s.

How each runs (printed again with the results):
- Watchpost: `watchpost serve` from this checkout, one process, its engine in it; SQLite by
  default; with `--postgres URL` (a server URL whose role may create databases) the bench
  creates a database of its own there and drops it afterwards.
- Healthchecks (peers/healthchecks.py): uWSGI with docker/uwsgi.ini's settings (4 processes
  x 1 thread, master, the sendalerts and sendreports daemons attached), SQLite, DEBUG=False.
- Uptime Kuma (peers/kuma.py): `node server/server.js`, SQLite; its monitors, one user and
  `checkUpdate` = false are written into a fresh kuma.db whose schema Kuma's own code made.

Nothing of the peers is kept in this repository. Get work trees of them:

    git clone https://github.com/healthchecks/healthchecks /tmp/peers-src/healthchecks
    git clone https://github.com/louislam/uptime-kuma /tmp/peers-src/uptime-kuma

(or, from bare copies: `git --git-dir=<bare> archive HEAD | tar -x -C DIR`). The script copies
each into `--work` (default /tmp/watchpost-peers) and installs it there: Healthchecks in its
own virtualenv (`pip install -r requirements.txt uwsgi`, Python >= 3.12: `--hc-python`;
pycurl's libcurl headers via `apt-get install -y libcurl4-openssl-dev` when missing), Kuma with
`npm ci`, `npm run build` (its web UI, without which its server does not start) and
`npm prune --omit dev` (node >= 20.4; a few minutes). Installs are kept in `--work` and redone only when requirements.txt / package-lock.json change.

Run from the repository root (ports --port-base .. +5 on 127.0.0.1; nothing else is contacted):

    .venv/bin/python bench/peers/run.py --healthchecks /tmp/peers-src/healthchecks \\
        --kuma /tmp/peers-src/uptime-kuma --postgres postgresql://root@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
REPO = BENCH.parent
sys.path[:0] = [str(BENCH), str(REPO / "src")]

from api_bench import machine  # noqa: E402
from peers import engine, healthchecks, kuma, loads, watchpost_side  # noqa: E402
from peers.report import Measurement, Metric, part_report  # noqa: E402

PARTS = ("pings", "lists", "engine")


def monitor_counts(text: str) -> list[int]:
    """`200,1000` -> [200, 1000]."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of counts: {text!r}") from None
    if not counts or any(n < 1 for n in counts):
        raise argparse.ArgumentTypeError(f"not a list of counts: {text!r}")
    return counts


def default_hc_python() -> str:
    """A Python >= 3.12 for Healthchecks (Django 6.1): on PATH, else under ~/.pyenv."""
    for name in ("python3.13", "python3.12"):
        if found := shutil.which(name):
            done = subprocess.run([found, "--version"], capture_output=True, check=False)
            if done.returncode == 0:
                return found
    pyenv = Path.home() / ".pyenv" / "versions"
    for folder in sorted(pyenv.glob("3.1[23]*"), reverse=True):
        if (folder / "bin" / "python3").exists():
            return str(folder / "bin" / "python3")
    return "python3"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--healthchecks", type=Path, help="a Healthchecks work tree")
    parser.add_argument("--kuma", type=Path, help="an Uptime Kuma work tree")
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "watchpost-peers",
        help="where the peers are installed and each run's data goes (outside the repository)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per part")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of load a round")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before each")
    parser.add_argument("--only", choices=PARTS, help="one part")
    parser.add_argument(
        "--monitors", type=monitor_counts, default=[200, 1000], help="engine: counts, `200,1000`"
    )
    parser.add_argument("--postgres", default="", help="a PostgreSQL server URL (Watchpost)")
    parser.add_argument("--connections", type=int, default=50, help="pings and lists")
    parser.add_argument("--timeout", type=float, default=5.0, help="per request, seconds")
    parser.add_argument("--window", type=float, default=90.0, help="engine: measured seconds")
    parser.add_argument(
        "--start-cap", type=float, default=900.0, help="engine: most seconds to wait for starts"
    )
    parser.add_argument("--hc-python", default="", help="Python >= 3.12 for Healthchecks")
    parser.add_argument("--port-base", type=int, default=19100, help="uses this port +1 .. +5")
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    parts = [args.only] if args.only else list(PARTS)
    if {"pings", "lists"} & set(parts) and args.healthchecks is None:
        parser.error("--healthchecks PATH is needed for pings and lists")
    if "engine" in parts and args.kuma is None:
        parser.error("--kuma PATH is needed for engine")
    args.parts = parts
    return args


def versions(args: argparse.Namespace) -> list[str]:
    lines = [f"{k}: {v}" for k, v in machine()]
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    lines.append(f"node: {node.stdout.strip() or '?'}")
    if args.kuma:
        lines.append("Uptime Kuma: " + peer_version(args.kuma / "package.json", '"version": "'))
    if args.healthchecks:
        lines.append("Healthchecks: " + peer_version(args.healthchecks / "CHANGELOG.md", "## v"))
    return lines


def peer_version(path: Path, marker: str) -> str:
    """The first version named in a file after marker ('?' when none)."""
    try:
        text = path.read_text()
    except OSError:
        return "?"
    at = text.find(marker)
    return text[at + len(marker) :].split()[0].strip('",') if at >= 0 else "?"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections: list[str] = []
    if {"pings", "lists"} & set(args.parts):
        python = args.hc_python or default_hc_python()
        hc = healthchecks.install(args.healthchecks.resolve(), work, python)
        if "pings" in args.parts:
            found = loads.pings(args, work, hc)
            sections.append(report("Heartbeat pings", found, loads.PING_METRICS))
            print(sections[-1], flush=True)
        if "lists" in args.parts:
            found = loads.lists(args, work, hc)
            sections.append(report("250-item lists, engines running", found, loads.LIST_METRICS))
            print(sections[-1], flush=True)
    if "engine" in args.parts:
        app = kuma.install(args.kuma.resolve(), work)
        for monitors, found in engine.run(args, work, app).items():
            title = f"Engine, {monitors:,} HTTP monitors every {engine.INTERVAL_S} s"
            sections.append(report(title, found, engine.ENGINE_METRICS, "Uptime Kuma"))
            print(sections[-1], flush=True)
    header = [
        f"## Peers: run {started}: `bench/peers/run.py {' '.join(argv)}`",
        "",
        *(f"- {line}" for line in versions(args)),
        f"- load average at the end: {os.getloadavg()[0]:.1f}",
        f"- {watchpost_side.describe()}",
        f"- {healthchecks.describe()}",
        f"- {kuma.describe()}",
        "",
    ]
    print("\n".join(header + sections))
    return 0


def report(
    title: str, found: list[Measurement], metrics: Sequence[Metric], peer: str = "Healthchecks"
) -> str:
    ours = sorted({m.side for m in found if m.side.startswith("Watchpost")})
    return part_report(title, found, metrics, ours, peer)


if __name__ == "__main__":
    raise SystemExit(main())
