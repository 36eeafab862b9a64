"""The benchmark script starts: its arguments parse and --help describes them (no timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "api_bench.py"


def test_bench_help_lists_the_options() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    for option in ("--sources", "--concurrency", "--duration", "--tool", "--write-docs"):
        assert option in done.stdout


def test_bench_rejects_an_unknown_tool() -> None:
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(SCRIPT), "--tool", "ab"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "invalid choice" in done.stderr


def test_the_in_process_bench_runs_every_case() -> None:
    """A tiny run: the script works end to end; what it prints is not checked (no timing)."""
    script = SCRIPT.with_name("api_inprocess.py")
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(script), "--sources", "300", "--requests", "3"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("ms CPU/request") == 4
