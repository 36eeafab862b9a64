"""Parts 1 and 2 of the peer benchmark: heartbeat pings and 250-item lists, each driven by
api_lists_load's keep-alive connections (aiohttp, in this process), Watchpost and Healthchecks
measured one after the other in every round (the order reversed every other round)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import uvloop

from api_bench import percentile
from api_lists_load import Case, drive
from peers import healthchecks, watchpost_side
from peers.procs import TreeCpu
from peers.report import Measurement, Metric, order, row

LIST_ITEMS = 250
PING_METRICS = (
    Metric("rps", "pings/s", "{:,.0f}"),
    Metric("p50", "p50 ms", "{:.1f}"),
    Metric("p99", "p99 ms", "{:.1f}"),
    Metric("cpu_ms", "server CPU ms/ping", "{:.3f}"),
    Metric("cpu_pct", "server CPU %", "{:.0f}"),
    Metric("errors", "errors+timeouts", "{:.0f}", compared=False),
)
LIST_METRICS = (
    Metric("rps", "req/s", "{:,.1f}"),
    Metric("p50", "p50 ms", "{:.0f}"),
    Metric("p99", "p99 ms", "{:.0f}"),
    Metric("spread", "p99/p50", "{:.2f}"),
    Metric("cpu_ms", "server CPU ms/req", "{:.2f}"),
    Metric("errors", "errors+timeouts", "{:.0f}", compared=False),
)


@dataclass(frozen=True)
class Side:
    name: str
    pid: int
    base: str
    path: str
    headers: dict[str, str]


def measure(side: Side, part: str, round_: int, args: argparse.Namespace) -> Measurement:
    """A warm-up, then --duration seconds of --connections connections sending back to back;
    the server's CPU is its whole process tree's (uWSGI's workers and daemons included)."""
    case = Case(side.name, side.path, 0)

    def run(seconds: float) -> tuple[list[float], int, int, float]:
        return uvloop.run(
            drive(side.base, "", case, args.connections, seconds, args.timeout, side.headers)
        )

    run(args.warmup)
    cpu = TreeCpu(side.pid)
    latencies, timeouts, errors, elapsed = run(args.duration)
    cpu_s = cpu.seconds()
    done = len(latencies)
    p50, p99 = (percentile(latencies, pct) for pct in (50, 99))
    figures = {
        "rps": done / elapsed if elapsed else 0.0,
        "p50": p50,
        "p99": p99,
        "spread": p99 / p50 if p50 else float("nan"),
        "cpu_ms": cpu_s / done * 1000 if done else float("nan"),
        "cpu_pct": 100 * cpu_s / elapsed if elapsed else float("nan"),
        "errors": float(timeouts + errors),
    }
    return Measurement(part, side.name, round_, figures)


def interleaved(
    part: str, sides: Sequence[Side], args: argparse.Namespace, metrics: Sequence[Metric]
) -> list[Measurement]:
    found: list[Measurement] = []
    by_name = {side.name: side for side in sides}
    for round_ in range(1, args.rounds + 1):
        for name in order(list(by_name), round_):
            found.append(measure(by_name[name], part, round_, args))
            print(f"  [{part}] {row(found[-1], metrics)}", flush=True)
    return found


def watchpost_sides(
    stack: ExitStack,
    args: argparse.Namespace,
    work: Path,
    part: str,
    paths: Callable[[watchpost_side.Served], tuple[str, dict[str, str]]],
) -> list[Side]:
    """Watchpost on SQLite, and on PostgreSQL when --postgres is given, each serving."""
    stores = [("Watchpost SQLite", "", 1)]
    if args.postgres:
        stores.append(("Watchpost PostgreSQL", args.postgres, 2))
    sides = []
    for name, url, offset in stores:
        folder = work / "watchpost" / f"{part}-{offset}"
        env, token = stack.enter_context(watchpost_side.prepared(folder, url))
        served = stack.enter_context(watchpost_side.serve(env, token, args.port_base + offset))
        path, headers = paths(served)
        sides.append(Side(name, served.pid, served.base, path, headers))
    return sides


def pings(args: argparse.Namespace, work: Path, hc: healthchecks.Install) -> list[Measurement]:
    """One heartbeat (Watchpost) and one check (Healthchecks), pinged by every connection."""
    with ExitStack() as stack:

        def ping_path(served: watchpost_side.Served) -> tuple[str, dict[str, str]]:
            return watchpost_side.heartbeat_ping_paths(served, 1)[0], {}

        sides = watchpost_sides(stack, args, work, "pings", ping_path)
        peer = stack.enter_context(
            healthchecks.serve(hc, work / "healthchecks" / "data-pings", args.port_base + 3, 1)
        )
        sides.append(Side("Healthchecks", peer.pid, peer.base, peer.ping_path, {}))
        return interleaved("pings", sides, args, PING_METRICS)


def lists(args: argparse.Namespace, work: Path, hc: healthchecks.Install) -> list[Measurement]:
    """250 heartbeats listed in one page of 250 beside Healthchecks' list of its 250 checks
    (it has no pages), engines running."""
    with ExitStack() as stack:

        def list_path(served: watchpost_side.Served) -> tuple[str, dict[str, str]]:
            watchpost_side.heartbeat_ping_paths(served, LIST_ITEMS)
            path = f"/api/v2/heartbeats?per_page={LIST_ITEMS}"
            return path, {"Authorization": f"Bearer {served.token}"}

        sides = watchpost_sides(stack, args, work, "lists", list_path)
        peer = stack.enter_context(
            healthchecks.serve(
                hc, work / "healthchecks" / "data-lists", args.port_base + 3, LIST_ITEMS
            )
        )
        headers = {"X-Api-Key": peer.api_key}
        sides.append(Side("Healthchecks", peer.pid, peer.base, "/api/v3/checks/", headers))
        return interleaved("lists", sides, args, LIST_METRICS)
