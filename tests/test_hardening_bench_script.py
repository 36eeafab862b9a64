"""bench/hardening_bench.py runs end to end at a tiny size (what it prints is not checked:
no timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "hardening_bench.py"


def test_the_hardening_bench_runs_at_a_tiny_size() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [
            sys.executable,
            str(SCRIPT),
            "--requests",
            "10",
            "--rounds",
            "1",
            "--backtrack-chars",
            "3",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("µs CPU/request") == 3
    assert "RE2 ^(a+)+$" in done.stdout
