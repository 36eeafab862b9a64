"""DuckDB's compression of an attribute column against none: the time of `field:value`'s
comparison over every row, and the bytes a value takes on disk, for the kinds of values an
attribute holds (ids, timestamps, messages, levels). What logs/columns.column_type decides
from (on a column's first insert, up to staging's FLUSH_ROWS rows). Both layouts are built and queried in the same run, one beside the other.

    PYTHONPATH=src .venv/bin/python bench/logs_column_compression_bench.py [--rows 5000000]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow as pa

from watchpost.logs.columns import column_type
from watchpost.logs.staging import FLUSH_ROWS

WORDS = ["request", "served", "user", "login", "cache", "miss", "retry", "upstream", "job"]


def kinds(rows: int) -> dict[str, Callable[[int], str]]:
    rng = random.Random(7)
    start = datetime(2026, 11, 20, tzinfo=UTC)
    step = timedelta(days=1) / rows
    return {
        "id (five digits)": lambda n: str(rng.randrange(100_000)),
        "trace id (hex)": lambda n: f"{rng.getrandbits(128):032x}",
        "timestamp": lambda n: (start + step * n).isoformat(),
        "message": lambda n: " ".join(rng.choice(WORDS) for _ in range(6)) + f" {n % 977}",
        "level": lambda n: "error" if n % 50 == 0 else "info",
    }


def measure(folder: Path, values: pa.Array, using: str, repeat: int) -> tuple[float, float]:
    """(p50 ms of a count of one value over every row, bytes a value on disk)."""
    path = folder / f"column-{using or 'auto'}.duckdb"
    con = duckdb.connect(str(path))
    try:
        con.execute(f"CREATE TABLE t (v VARCHAR {using})")
        con.register("incoming", pa.table({"v": values}))
        con.execute("INSERT INTO t SELECT v FROM incoming")
        con.execute("CHECKPOINT")
        wanted = values[len(values) // 3].as_py()
        sql = "SELECT count(*) FROM t WHERE v = ?"
        con.execute(sql, [wanted]).fetchall()
        samples = []
        for _ in range(repeat):
            began = time.perf_counter()
            con.execute(sql, [wanted]).fetchall()
            samples.append((time.perf_counter() - began) * 1000)
    finally:
        con.close()
    size = path.stat().st_size
    path.unlink()
    return statistics.median(samples), size / len(values)


def logtail_texts(rows: int) -> pa.Table:
    """`raw` and `text` of `rows` logtail-python events (the ingest bench's), as `POST /`
    builds them."""
    sys.path.insert(0, str(Path(__file__).parent))
    from logs_ingest_bench import logtail_batch
    from watchpost.logs import fast_columns

    received = datetime.now(UTC)
    parts = []
    for n in range(rows // 1000):
        batch = fast_columns.build_batch(
            logtail_batch(1000, n), source_id=1, team_id=1, received=received
        )
        assert batch is not None and batch.prebuilt is not None
        parts.append(batch.prebuilt.select(["raw", "text"]))
    texts = pa.concat_tables(parts).combine_chunks()
    return texts.add_column(0, "id", pa.array(range(len(texts)), pa.int64()))


def long_texts(folder: Path, rows: int, repeat: int) -> None:
    texts = logtail_texts(rows)
    print(
        f"{'raw and text':18} {'insert µs/event':>16} {'B/event':>8} {'word ms':>8} {'fetch ms':>9}"
    )
    for label, using in (
        ("default", ""),
        ("zstd", "USING COMPRESSION zstd"),
        ("uncompressed", "USING COMPRESSION uncompressed"),
    ):
        path = folder / f"texts-{label}.duckdb"
        con = duckdb.connect(str(path))
        try:
            con.execute(f"CREATE TABLE t (id BIGINT, raw VARCHAR {using}, text VARCHAR {using})")
            inserts = []
            for chunk in range(0, rows, FLUSH_ROWS):  # as staging inserts: a row group a time
                part = texts.slice(chunk, FLUSH_ROWS)
                con.register("incoming", part)
                began = time.perf_counter()
                con.execute("INSERT INTO t SELECT id, raw, text FROM incoming")
                inserts.append((time.perf_counter() - began) / len(part))
                con.unregister("incoming")
            con.execute("CHECKPOINT")
            word, fetch = [], []
            for _ in range(repeat):
                began = time.perf_counter()
                con.execute(
                    "SELECT count(*) FROM t WHERE contains(text, 'served in 17 ms')"
                ).fetchall()
                word.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                con.execute("SELECT raw FROM t WHERE id % 997 = 5 LIMIT 100").fetchall()
                fetch.append((time.perf_counter() - began) * 1000)
        finally:
            con.close()
        size = path.stat().st_size / rows
        path.unlink()
        print(
            f"{label:18} {statistics.median(inserts) * 1e6:16.2f} {size:8.1f} "
            f"{statistics.median(word):8.1f} {statistics.median(fetch):9.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--long-texts", action="store_true", help="raw and text, not attributes")
    args = parser.parse_args()
    print(
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"DuckDB {duckdb.__version__}, {args.rows:,} rows, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    if args.long_texts:
        with tempfile.TemporaryDirectory(prefix="watchpost-column-bench-") as name:
            long_texts(Path(name), args.rows, args.repeat)
        return
    print(
        f"{'values':18} {'compressed ms / B':>18} {'uncompressed ms / B':>20}  column_type (first insert)"
    )
    with tempfile.TemporaryDirectory(prefix="watchpost-column-bench-") as name:
        folder = Path(name)
        for label, make in kinds(args.rows).items():
            values = pa.array([make(n) for n in range(args.rows)], pa.string())
            auto = measure(folder, values, "", args.repeat)
            plain = measure(folder, values, "USING COMPRESSION uncompressed", args.repeat)
            # the store decides on a column's first insert: at most FLUSH_ROWS rows
            first = column_type(values.slice(0, FLUSH_ROWS))
            chosen = "uncompressed" if "uncompressed" in first else "compressed"
            print(
                f"{label:18} {auto[0]:8.1f} / {auto[1]:5.1f} {plain[0]:11.1f} / {plain[1]:5.1f}"
                f"  {chosen}"
            )


if __name__ == "__main__":
    main()
