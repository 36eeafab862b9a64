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
