"""The console overview benchmark runs end to end on a tiny team (what it measures is not
checked: no timing assertions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "console_bench.py"


def test_the_console_bench_runs_on_a_tiny_team() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [sys.executable, str(SCRIPT), "--monitors", "6", "--runs", "2"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "seeded 6 monitors (2 down)" in done.stdout, done.stdout
    assert "Console overview, 6 monitors, SQLite" in done.stdout
    for case in ("bare ceiling", "overview: first page", "overview: search"):
        assert f"| {case}" in done.stdout, done.stdout
    assert "| 6 rows match |" in done.stdout
    for case in ("HTTP: bare ceiling", "HTTP: overview, first page", "HTTP: monitor page"):
        assert f"| {case}" in done.stdout, done.stdout


def test_the_console_bench_measures_the_status_page_editor() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [sys.executable, str(SCRIPT), "--monitors", "6", "--runs", "2", "--status-editor"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "seeded 25 status pages (200 resources on one, 8 on each other)" in done.stdout
    for case in (
        "HTTP: bare ceiling again (GET /healthz)",
        "HTTP: status page editor, 200 resources",
        "HTTP: status pages list, 25 rows with their state",
    ):
        assert f"| {case} | 2 |" in done.stdout, done.stdout
    assert "| 10 sections; " in done.stdout and "| 392 resources in all; " in done.stdout
