"""The peer benchmark's pure parts, without the peers installed: its arguments, and how it
prints rounds, per-round ratios and medians (no server, no timing)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPT = BENCH / "peers" / "run.py"


def module(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_help_lists_the_options() -> None:
    done = run("--help")
    assert done.returncode == 0, done.stderr
    for option in (
        "--healthchecks",
        "--kuma",
        "--work",
        "--rounds",
        "--duration",
        "--only",
        "--monitors",
        "--postgres",
    ):
        assert option in done.stdout


def test_an_unknown_part_and_a_missing_peer_are_refused() -> None:
    done = run("--only", "workers")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr
    done = run("--only", "pings", "--kuma", "/nowhere")
    assert done.returncode == 2
    assert "--healthchecks PATH is needed" in done.stderr
    done = run("--only", "engine", "--healthchecks", "/nowhere")
    assert done.returncode == 2
    assert "--kuma PATH is needed" in done.stderr


def test_arguments_parse() -> None:
    peers_run = module("peers.run")
    args = peers_run.parse(
        ["--healthchecks", "/hc", "--kuma", "/kuma", "--rounds", "5", "--monitors", "200,1000"]
    )
    assert args.monitors == [200, 1000]
    assert args.rounds == 5
    assert args.parts == ["pings", "lists", "engine"]
    assert args.healthchecks == Path("/hc")
    only = peers_run.parse(["--kuma", "/kuma", "--only", "engine", "--monitors", "50"])
    assert only.parts == ["engine"]
    assert only.monitors == [50]
    for bad in ("", "200,x", "0"):
        with pytest.raises(Exception, match="not a list of counts"):
            peers_run.monitor_counts(bad)


def test_rounds_alternate_which_side_goes_first() -> None:
    report = module("peers.report")
    assert report.order(["Watchpost", "peer"], 1) == ["Watchpost", "peer"]
    assert report.order(["Watchpost", "peer"], 2) == ["peer", "Watchpost"]
    assert report.order(["Watchpost", "peer"], 3) == ["Watchpost", "peer"]


def test_ratios_and_medians_are_printed() -> None:
    report = module("peers.report")
    metrics = [report.Metric("rps", "req/s", "{:,.0f}"), report.Metric("p99", "p99 ms")]
    found = [
        report.Measurement("pings", "Watchpost", 1, {"rps": 600.0, "p99": 20.0}),
        report.Measurement("pings", "Healthchecks", 1, {"rps": 200.0, "p99": 40.0}),
        report.Measurement("pings", "Healthchecks", 2, {"rps": 100.0, "p99": 50.0}),
        report.Measurement("pings", "Watchpost", 2, {"rps": 500.0, "p99": 10.0}),
        report.Measurement("pings", "Watchpost", 3, {"rps": 400.0}),
        report.Measurement("pings", "Healthchecks", 3, {"rps": 0.0, "p99": 30.0}),
    ]
    text = report.part_report("Pings", found, metrics, ["Watchpost"], "Healthchecks")
    lines = text.splitlines()
    assert lines[0] == "### Pings"
    # Every round as measured, in order; a missing figure prints as "-".
    assert "| 1 | Watchpost | 600 | 20.0 |  |" in lines
    assert "| 3 | Watchpost | 400 | - |  |" in lines
    # Medians of each side over the rounds (missing figures left out).
    assert "| Watchpost | 500 | 15.0 |" in lines
    assert "| Healthchecks | 100 | 40.0 |" in lines
    # Per-round ratios (none where the peer's figure is 0 or either is missing) and their median.
    assert "| 1 | 3.00 | 0.50 |" in lines
    assert "| 2 | 5.00 | 0.20 |" in lines
    assert "| 3 | - | - |" in lines
    assert "| median | **4.00** | **0.35** |" in lines


def test_ratio_and_median_helpers() -> None:
    report = module("peers.report")
    assert report.ratio(3.0, 2.0) == 1.5
    assert report.ratio(3.0, 0.0) is None
    assert report.ratio(None, 2.0) is None
    assert report.ratio(float("nan"), 2.0) is None
    assert report.median([1.0, None, 3.0, float("nan")]) == 2.0
    assert report.median([None]) is None
