"""The logs ingestion benchmark runs end to end at a tiny size (what it prints is not
checked: no timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "logs_ingest_bench.py"


def test_the_logs_ingest_bench_runs_at_a_tiny_size() -> None:
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [
            sys.executable,
            str(SCRIPT),
            *("--duration", "0.5", "--warmup", "0.2", "--concurrency", "2"),
            *("--batch", "20", "--batches", "2"),
            *("--ceiling-duration", "0.3", "--memory-limit-mb", "256"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| ingest: msgpack batches into the embedded store |" in done.stdout
    assert "store append alone" in done.stdout and "failures 0" in done.stdout
    assert "| ingest, until searchable" in done.stdout
    assert "--memory-limit-mb 256" in done.stdout
    assert "highest RSS in each third of the ingest phase" in done.stdout
