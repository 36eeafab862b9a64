"""DuckDB alone: the embedded logs store's day-table insert, at a given size and settings.

The bench's logtail events (bench/logs_ingest_bench.py's bodies), parsed and turned into the
store's Arrow table once; then `--total` rows inserted into a fresh DuckDB file in
transactions of `--rows` rows, as the store's staging does (`INSERT … BY NAME` with the
attribute columns lower-cased). Prints each transaction's insert and commit time and the
process CPU per row over the run, and the file's bytes per row after a last CHECKPOINT.

    .venv/bin/python bench/logs_duckdb_insert_bench.py [--rows 120000] [--total 2400000]
        [--setting preserve_insertion_order=true] [--setting checkpoint_threshold=1GB] ...

The store's own settings (memory limit aside) are the default: `preserve_insertion_order`
false; a --setting adds to or overrides them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # this checkout's code

from logs_ingest_bench import logtail_batch
from watchpost.logs.columns import lowered
from watchpost.logs.day_tables import DDL, LogTables
from watchpost.logs.parsing import MSGPACK, build_batch, decode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=120_000, help="rows a transaction")
    parser.add_argument("--total", type=int, default=2_400_000)
    parser.add_argument("--setting", action="append", default=[], help="name=value")
    args = parser.parse_args()
    received = datetime.now(UTC)
    tables = LogTables(threading.Lock())
    parts = [
        tables.tables_of(
            build_batch(
                decode(logtail_batch(1000, n), MSGPACK), source_id=1, team_id=1, received=received
            )
        )[0]
        for n in range(20)
    ]
    chunk = pa.concat_tables(parts * (args.rows // 20_000 + 1)).slice(0, args.rows)
    config: dict[str, str | bool | int | float | list[str]] = {"preserve_insertion_order": False}
    for setting in args.setting:
        name, _, value = setting.partition("=")
        config[name] = value
    with tempfile.TemporaryDirectory(prefix="wp-duckdb-insert-") as folder:
        path = Path(folder) / "logs.duckdb"
        con = duckdb.connect(str(path), config=config)
        con.execute(f"CREATE TABLE t ({DDL['logs']})")
        for name in chunk.column_names:
            if name.startswith("a."):
                con.execute(f'ALTER TABLE t ADD COLUMN "{name}" VARCHAR')
        done = 0
        wall0, cpu0 = time.perf_counter(), time.process_time()
        while done < args.total:
            started = time.perf_counter()
            con.execute("BEGIN TRANSACTION")
            con.register("incoming", chunk)
            con.execute(f"INSERT INTO t BY NAME {lowered(chunk)}")
            con.unregister("incoming")
            inserted = time.perf_counter()
            con.execute("COMMIT")
            print(
                f"{chunk.num_rows:,} rows: insert {inserted - started:.2f} s, "
                f"commit {time.perf_counter() - inserted:.2f} s"
            )
            done += chunk.num_rows
        con.execute("CHECKPOINT")
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        con.close()
        size = path.stat().st_size
    print(
        f"settings {config}: {done:,} rows, {wall / done * 1e6:.1f} µs a row of wall time, "
        f"{cpu / done * 1e6:.1f} µs of CPU; {size / done:.0f} bytes a row on disk"
    )


if __name__ == "__main__":
    main()
