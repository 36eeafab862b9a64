"""bench/logs_query_bench.py runs end to end on a tiny data set (no timing is checked): the
four searches answer the same rows through the API, the store and by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "logs_query_bench.py"


def test_the_bench_runs() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "WATCHPOST_SECRET_KEY": "bench-test"}
    done = subprocess.run(  # noqa: S603  (our own script, fixed arguments)
        [sys.executable, str(SCRIPT), "--events", "3000", "--repeat", "2", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env=env,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["events"] == 3000
    for search in ("newest", "word", "rare", "field"):
        rows = {report[way][search]["rows"] for way in ("api", "store", "by_hand")}
        assert len(rows) == 1, (search, report)
    assert report["api"]["newest"]["rows"] == 100
    assert report["api"]["word"]["rows"] == 3  # one event in 1,000
    assert report["api"]["rare"]["rows"] == 40  # fewer than a page: the whole day is read
    assert report["api"]["field"]["rows"] >= 1
