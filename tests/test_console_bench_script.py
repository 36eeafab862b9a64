"""The console overview benchmark runs end to end on a tiny team (what it measures is not
checked: no timing assertions)."""

from __future__ import annotations

import re
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


def test_the_console_logs_bench_runs_on_a_few_events() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [
            sys.executable,
            str(SCRIPT),
            *("--logs", "300", "--runs", "2"),
            *("--tail-rate", "200", "--tail-seconds", "2"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "appended 300 events" in done.stdout, done.stdout
    assert "Console logs, 300 events over 24 h, embedded store (DuckDB)" in done.stdout
    for case in (
        "ceiling: GET /api/v1/query, 24 h, first 50",
        "explorer: GET /logs, 24 h (first page + histogram)",
        "explorer: GET /logs, 24 h, context.user.id:4242",
        "explorer: GET /logs, 7 d",
        "histogram alone, 7 d",
    ):
        assert f"| {case}" in done.stdout, done.stdout
    assert "| 300 events counted |" in done.stdout
    tail = re.search(
        r"live tail: ([\d,]+) events sent .* got ([\d,]+) lines .* told ([\d,]+) were skipped;"
        r" ([\d,]+) neither",
        done.stdout,
    )
    assert tail is not None, done.stdout
    sent, shown, skipped, missing = (int(g.replace(",", "")) for g in tail.groups())
    assert sent >= 200 and shown > 0 and missing == 0 and shown + skipped == sent


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
