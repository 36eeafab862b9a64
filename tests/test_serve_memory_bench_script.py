"""bench/serve_memory_bench.py starts: its arguments parse and --help describes them; a tiny
run (no monitors, no logs, no warm-up) prints its table: the stack's floor, the server at start
and once every route group is built (no figure is checked)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "serve_memory_bench.py"


def test_help_lists_the_options() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    for option in ("--monitors", "--warmup", "--logs", "--batches"):
        assert option in done.stdout


def test_a_tiny_run_prints_its_table() -> None:
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        pytest.skip("nginx is not installed (Debian: apt-get install nginx)")
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(SCRIPT), "--monitors", "0", "--warmup", "0"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "| 0 | the stack alone (bench/ceiling_app.py --stack) |" in done.stdout
    assert "| 0 | at start |" in done.stdout
    assert "| 0 | after every API domain and the console are built |" in done.stdout
