"""Part 3 of the peer benchmark: the check engine's CPU and memory with N HTTP monitors every
30 s against one local target (engine_bench's nginx, the same for both), Watchpost's
`watchpost serve` beside Uptime Kuma, one at a time, the order reversed every other round.

Each phase: a fresh store with N monitors, the server started, then a wait until every monitor
has a first stored result (capped by --start-cap; the time it took is reported: Watchpost
spreads the first checks of monitors created at once over their interval, Kuma starts them one
by one with a random 0.3-1 s pause between them), then a window of
--window seconds: CPU of the server's process tree over the window (share of one core), its
resident memory (sum of the tree's VmRSS) read every 5 s (mean and max), the checks the target
answered per second (nginx's own request counter: the same measure for both) and the results
each stored per second."""

from __future__ import annotations

import argparse
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from api_bench import HOST
from engine_bench import nginx, nginx_requests
from peers import kuma, watchpost_side
from peers.procs import TreeCpu, tree_rss_mb
from peers.report import Measurement, Metric, order, row

INTERVAL_S = 30
SAMPLE_EVERY_S = 5.0
ENGINE_METRICS = (
    Metric("start_s", "all started after s", "{:.0f}"),
    Metric("cpu_pct", "CPU % of a core", "{:.1f}"),
    Metric("rss_mean", "RSS mean MB", "{:.0f}"),
    Metric("rss_max", "RSS max MB", "{:.0f}"),
    Metric("checks_s", "target requests/s", "{:.1f}"),
    Metric("stored_s", "results stored/s", "{:.1f}"),
)


def wait_started(
    count: Callable[[], int], monitors: int, cap_s: float, label: str
) -> tuple[float, int]:
    """Seconds until count() reaches monitors (or the cap), and the count then."""
    started = shown = time.monotonic()
    seen = count()
    while seen < monitors and time.monotonic() - started < cap_s:
        time.sleep(2)
        seen = count()
        if time.monotonic() - shown >= 30:
            shown = time.monotonic()
            print(f"  [{label}] {seen}/{monitors} monitors checked", flush=True)
    return time.monotonic() - started, seen


def window(
    pid: int, seconds: float, target_port: int, stored: Callable[[], int]
) -> dict[str, float]:
    cpu = TreeCpu(pid)
    target0, stored0 = nginx_requests(target_port) or 0, stored()
    t0 = time.monotonic()
    rss: list[float] = []
    while (elapsed := time.monotonic() - t0) < seconds:
        time.sleep(min(SAMPLE_EVERY_S, max(0.0, seconds - elapsed)))
        rss.append(tree_rss_mb(pid))
        cpu.sample()
    elapsed = time.monotonic() - t0
    target1, stored1 = nginx_requests(target_port) or 0, stored()
    return {
        "cpu_pct": 100 * cpu.seconds() / elapsed,
        "rss_mean": sum(rss) / len(rss) if rss else float("nan"),
        "rss_max": max(rss, default=float("nan")),
        "checks_s": (target1 - target0) / elapsed,
        "stored_s": (stored1 - stored0) / elapsed,
    }


def phase(
    side: str,
    monitors: int,
    round_: int,
    args: argparse.Namespace,
    work: Path,
    target_port: int,
    kuma_app: Path | None,
) -> Measurement:
    label = f"engine {monitors} round {round_} {side}"
    print(f"  [{label}] seeding …", flush=True)
    if side == "Uptime Kuma":
        assert kuma_app is not None
        data = work / "kuma" / f"data-{monitors}-{round_}"
        target = f"http://{HOST}:{target_port}/ok?m="
        kuma.seed(kuma_app, data, args.port_base + 5, monitors, target)
        running: AbstractContextManager[int] = kuma.serve(kuma_app, data, args.port_base + 5)
        checked: Callable[[], int] = lambda: kuma.first_heartbeats(data)  # noqa: E731
        stored: Callable[[], int] = lambda: kuma.heartbeats(data)  # noqa: E731
    else:
        data = work / "watchpost" / f"engine-{monitors}-{round_}"
        running = watchpost_engine(data, monitors, target_port, args.port_base + 1)
        checked = lambda: watchpost_side.checked_monitors(data)  # noqa: E731
        stored = lambda: watchpost_side.stored_results(data)  # noqa: E731
    with running as pid:
        start_s, seen = wait_started(checked, monitors, args.start_cap, label)
        print(f"  [{label}] measuring {args.window:.0f} s …", flush=True)
        figures = window(pid, args.window, target_port, stored)
    figures["start_s"] = start_s
    note = "" if seen >= monitors else f"only {seen} started within the cap"
    return Measurement(f"engine {monitors}", side, round_, figures, note)


@contextmanager
def watchpost_engine(data: Path, monitors: int, target_port: int, port: int) -> Iterator[int]:
    with watchpost_side.prepared(data, "") as (env, token):
        watchpost_side.with_monitors(env, monitors, INTERVAL_S, target_port)
        with watchpost_side.serve(env, token, port) as served:
            yield served.pid


def run(args: argparse.Namespace, work: Path, kuma_app: Path) -> dict[int, list[Measurement]]:
    """Every monitor count, its rounds interleaved; the measurements by monitor count."""
    found: dict[int, list[Measurement]] = {}
    sides = ["Watchpost", "Uptime Kuma"]
    shutil.rmtree(work / "target", ignore_errors=True)
    (work / "target").mkdir(parents=True)
    with nginx(work / "target", args.port_base + 4) as target_port:
        for monitors in args.monitors:
            found[monitors] = []
            for round_ in range(1, args.rounds + 1):
                for side in order(sides, round_):
                    m = phase(side, monitors, round_, args, work, target_port, kuma_app)
                    found[monitors].append(m)
                    print(f"  [{m.part}] {row(m, ENGINE_METRICS)}", flush=True)
    return found
