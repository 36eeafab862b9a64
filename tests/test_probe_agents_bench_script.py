"""The probe agents benchmark script starts: its arguments parse and --help lists them (no
timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "probe_agents_bench.py"


def test_probe_agents_bench_help_lists_the_options() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    for option in ("--monitors", "--interval", "--rounds", "--database", "--write-docs"):
        assert option in done.stdout


def test_probe_agents_bench_rejects_an_unknown_phase() -> None:
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(SCRIPT), "--only", "workers"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "invalid choice" in done.stderr
