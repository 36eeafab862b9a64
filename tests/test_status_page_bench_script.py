"""The status page benchmark runs end to end on a tiny page (what it measures is not checked:
no timing assertions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "status_page_bench.py"


def test_the_status_page_bench_runs_on_a_tiny_page() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [
            sys.executable,
            str(SCRIPT),
            "--resources",
            "2",
            "--days",
            "7",
            "--requests",
            "2",
            "--no-load",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "a page of 2 monitors" in done.stdout
    for answer in ("summary.json", "feed.atom", "badge.svg"):
        assert f"| {answer} |" in done.stdout, done.stdout
