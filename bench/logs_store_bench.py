# ruff: noqa: S608  (hand-written SQL of the bench: constants only)
"""Logs store benchmark: the embedded engines side by side, each driven by hand (the ceiling).

Candidates for the embedded logs store: SQLite (the standard library's, with and without an
FTS5 trigram index), DuckDB, and chDB (ClickHouse's engine in-process). Each gets the same
events (--events, default 1,000,000, spread over the 24 hours before a fixed "now"; source 1
has 90 % of them), appended in batches of 1,000, each batch durable before the next (the
`append` contract), and then the same three searches of the issue, each run --repeat times:

- newest:  the newest 100 events of source 1 in the last hour;
- word:    the newest 100 of source 1 over 24 h whose message or any attribute value contains a
           word, case-insensitively: a rare word (1 event in 1,000) and an absent one (a full
           scan of the day);
- field:   the newest 100 of source 1 over 24 h with context.user.id = a value (≈ 10 events).

It reports the ingest rate, the p50/p99 latency of each search, the bytes per event on disk
and the size of the engine's install. Also `--store` runs the same through Watchpost's own
store (open_store on the embedded engine), to show what the interface costs over the raw engine,
and `--concurrent N` only measures the store's ingest from N concurrent appenders.

DuckDB is driven as the store drives it: attributes in a MAP plus a lower-cased `pairs` string
("\x1fkey=value…\x1f") that a word or key=value is looked for in before the map is read.

Run from the repository root:  PYTHONPATH=src .venv/bin/python bench/logs_store_bench.py
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
BATCH = 1000
RARE = "kaboom"
ABSENT = "zyzzyva"
USER = "4242"
WORDS = [
    "request",
    "served",
    "user",
    "login",
    "cache",
    "miss",
    "retry",
    "upstream",
    "timeout",
    "queue",
    "job",
    "done",
]


@dataclass
class Event:
    id: int
    source_id: int
    dt: datetime
    level: str
    service: str
    message: str
    attributes: dict[str, str]
    raw: bytes


def events(count: int, seed: int = 7) -> Iterator[Event]:
    """Deterministic log events, ascending in time over the 24 h before NOW."""
    rng = random.Random(seed)
    start = NOW - timedelta(hours=24)
    step = 86400 / count
    for i in range(count):
        dt = start + timedelta(seconds=i * step)
        level = rng.choices(["info", "warn", "error", "debug"], [70, 15, 5, 10])[0]
        words = rng.choices(WORDS, k=8)
        if rng.random() < 0.001:
            words[3] = RARE.upper()
        message = f"{' '.join(words)} in {rng.randint(1, 900)} ms"
        user = str(rng.randint(1, 100_000))
        attrs = {
            "level": level,
            "message": message,
            "service": "api" if i % 3 else "worker",
            "context.runtime.file": f"app/{rng.choice(WORDS)}.py",
            "context.runtime.line": str(rng.randint(1, 800)),
            "context.user.id": user,
            "http.status": str(rng.choice([200, 200, 200, 201, 404, 500])),
            "request_id": f"{rng.getrandbits(64):016x}",
            "tags.0": rng.choice(["prod", "canary"]),
        }
        raw = orjson.dumps({"dt": dt.isoformat(), **attrs})
        yield Event(
            id=(int(dt.timestamp() * 1000) << 20) | (i & 0xFFFFF),
            source_id=1 if i % 10 else 2,
            dt=dt,
            level=level,
            service=attrs["service"],
            message=message,
            attributes=attrs,
            raw=raw,
        )


def batches(count: int) -> Iterator[list[Event]]:
    batch: list[Event] = []
    for event in events(count):
        batch.append(event)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def micros(dt: datetime) -> int:
    return int(dt.timestamp() * 1_000_000)


def disk_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def install_bytes(*modules: str) -> int:
    """Bytes on disk of the modules' packages (their own files and compiled libraries)."""
    total = 0
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        root = origin.parent if origin.name == "__init__.py" else origin
        files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]
        total += sum(p.stat().st_size for p in files)
        for sibling in origin.parent.parent.glob(f"_{name}*.so"):
            total += sibling.stat().st_size
    return total


class Engine:
    name = ""
    modules: tuple[str, ...] = ()

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def append(self, batch: list[Event]) -> None:
        raise NotImplementedError

    def newest(self) -> list[Any]:
        raise NotImplementedError

    def word(self, word: str) -> list[Any]:
        raise NotImplementedError

    def field(self, path: str, value: str) -> list[Any]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class SQLiteEngine(Engine):
    modules = ("sqlite3",)

    def __init__(self, folder: Path, fts: bool) -> None:
        super().__init__(folder)
        self.fts = fts
        self.name = "SQLite + FTS5 trigram" if fts else "SQLite (LIKE scan)"
        self.db = sqlite3.connect(folder / "logs.sqlite", isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute(
            "CREATE TABLE logs(id INTEGER PRIMARY KEY, source_id INT, dt INT, level TEXT, "
            "service TEXT, message TEXT, attributes TEXT, raw BLOB)"
        )
        self.db.execute("CREATE INDEX logs_source_dt ON logs(source_id, dt, id)")
        if fts:
            self.db.execute(
                "CREATE VIRTUAL TABLE logs_text USING fts5(body, content='', tokenize='trigram')"
            )

    def append(self, batch: list[Event]) -> None:
        self.db.execute("BEGIN")
        self.db.executemany(
            "INSERT INTO logs VALUES (?,?,?,?,?,?,?,?)",
            [
                (
                    e.id,
                    e.source_id,
                    micros(e.dt),
                    e.level,
                    e.service,
                    e.message,
                    orjson.dumps(e.attributes).decode(),
                    e.raw,
                )
                for e in batch
            ],
        )
        if self.fts:
            self.db.executemany(
                "INSERT INTO logs_text(rowid, body) VALUES (?, ?)",
                [(e.id, "\x1f".join(f"{k}={v}" for k, v in e.attributes.items())) for e in batch],
            )
        self.db.execute("COMMIT")

    def _window(self, hours: int) -> tuple[int, int]:
        return micros(NOW - timedelta(hours=hours)), micros(NOW)

    def newest(self) -> list[Any]:
        since, until = self._window(1)
        return self.db.execute(
            "SELECT id, source_id, dt, raw FROM logs WHERE source_id = 1 AND dt >= ? AND dt < ? "
            "ORDER BY dt DESC, id DESC LIMIT 100",
            (since, until),
        ).fetchall()

    def word(self, word: str) -> list[Any]:
        since, until = self._window(24)
        like = f"%{word}%"
        if self.fts:
            return self.db.execute(
                "SELECT id, source_id, dt, raw FROM logs WHERE id IN "
                "(SELECT rowid FROM logs_text WHERE logs_text MATCH ?) "
                "AND source_id = 1 AND dt >= ? AND dt < ? "
                "AND (message LIKE ? OR EXISTS (SELECT 1 FROM json_each(logs.attributes) "
                "WHERE value LIKE ?)) ORDER BY dt DESC, id DESC LIMIT 100",
                (f'"{word}"', since, until, like, like),
            ).fetchall()
        return self.db.execute(
            "SELECT id, source_id, dt, raw FROM logs WHERE source_id = 1 AND dt >= ? AND dt < ? "
            "AND (message LIKE ? OR EXISTS (SELECT 1 FROM json_each(logs.attributes) "
            "WHERE value LIKE ?)) ORDER BY dt DESC, id DESC LIMIT 100",
            (since, until, like, like),
        ).fetchall()

    def field(self, path: str, value: str) -> list[Any]:
        since, until = self._window(24)
        json_path = f'$."{path}"'
        if self.fts:
            return self.db.execute(
                "SELECT id, source_id, dt, raw FROM logs WHERE id IN "
                "(SELECT rowid FROM logs_text WHERE logs_text MATCH ?) "
                "AND source_id = 1 AND dt >= ? AND dt < ? "
                "AND lower(json_extract(attributes, ?)) = lower(?) "
                "ORDER BY dt DESC, id DESC LIMIT 100",
                (f'"{path}={value}"', since, until, json_path, value),
            ).fetchall()
        return self.db.execute(
            "SELECT id, source_id, dt, raw FROM logs WHERE source_id = 1 AND dt >= ? AND dt < ? "
            "AND lower(json_extract(attributes, ?)) = lower(?) "
            "ORDER BY dt DESC, id DESC LIMIT 100",
            (since, until, json_path, value),
        ).fetchall()

    def close(self) -> None:
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()


class DuckDBEngine(Engine):
    name = "DuckDB"
    modules = ("duckdb",)

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        import duckdb

        self.db = duckdb.connect(str(folder / "logs.duckdb"))
        self.db.execute(
            "CREATE TABLE logs(id BIGINT, source_id INTEGER, dt TIMESTAMPTZ, level VARCHAR, "
            "service VARCHAR, message VARCHAR, attributes MAP(VARCHAR, VARCHAR), raw BLOB, "
            "pairs VARCHAR)"
        )
        self.staging = folder / "batch.ndjson"

    def append(self, batch: list[Event]) -> None:
        # DuckDB's executemany runs ≈ 500 rows/s; its JSON reader takes a batch ≈ 100x faster.
        with self.staging.open("wb") as out:
            for e in batch:
                out.write(
                    orjson.dumps(
                        {
                            "id": e.id,
                            "source_id": e.source_id,
                            "dt": e.dt,
                            "level": e.level,
                            "service": e.service,
                            "message": e.message,
                            "attributes": e.attributes,
                            "raw": e.raw.decode(),
                            "pairs": "".join(
                                f"\x1f{k}={v}" for k, v in e.attributes.items()
                            ).lower()
                            + "\x1f",
                        }
                    )
                    + b"\n"
                )
        self.db.execute(
            f"INSERT INTO logs SELECT * FROM read_json('{self.staging}', format='newline_delimited', "
            "columns={id:'BIGINT', source_id:'INTEGER', dt:'TIMESTAMPTZ', level:'VARCHAR', "
            "service:'VARCHAR', message:'VARCHAR', attributes:'MAP(VARCHAR, VARCHAR)', "
            "raw:'BLOB', pairs:'VARCHAR'})"
        )

    def newest(self) -> list[Any]:
        return self.db.execute(
            "SELECT id, source_id, epoch_us(dt), raw FROM logs WHERE source_id = 1 AND dt >= ? AND dt < ? "
            "ORDER BY dt DESC, id DESC LIMIT 100",
            [NOW - timedelta(hours=1), NOW],
        ).fetchall()

    def word(self, word: str) -> list[Any]:
        return self.db.execute(
            "SELECT id, source_id, epoch_us(dt), raw FROM logs WHERE source_id = 1 AND dt >= ? AND dt < ? "
            "AND contains(pairs, ?) AND (message ILIKE ? OR len(list_filter(map_values(attributes), "
            "lambda v: v ILIKE ?)) > 0) ORDER BY dt DESC, id DESC LIMIT 100",
            [NOW - timedelta(hours=24), NOW, word.lower(), f"%{word}%", f"%{word}%"],
        ).fetchall()

    def field(self, path: str, value: str) -> list[Any]:
        return self.db.execute(
            "SELECT id, source_id, epoch_us(dt), raw FROM logs WHERE source_id = 1 AND dt >= ? AND dt < ? "
            "AND contains(pairs, ?) AND lower(attributes[?]) = lower(?) "
            "ORDER BY dt DESC, id DESC LIMIT 100",
            [NOW - timedelta(hours=24), NOW, f"\x1f{path}={value}\x1f".lower(), path, value],
        ).fetchall()

    def close(self) -> None:
        self.db.execute("CHECKPOINT")
        self.db.close()


class ChDBEngine(Engine):
    name = "chDB (MergeTree)"
    modules = ("chdb",)

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        import chdb

        self.db = chdb.connect(str(folder / "chdb"))  # type: ignore[no-untyped-call]
        self.db.query(
            "CREATE TABLE logs(id UInt64, source_id UInt32, dt DateTime64(6, 'UTC'), "
            "level LowCardinality(String), service LowCardinality(String), message String, "
            "attributes Map(LowCardinality(String), String), raw String CODEC(ZSTD(1))) "
            "ENGINE = MergeTree PARTITION BY toDate(dt) ORDER BY (source_id, dt, id) "
            "SETTINGS fsync_after_insert = 1, fsync_part_directory = 1"
        )

    def append(self, batch: list[Event]) -> None:
        rows = b"\n".join(
            orjson.dumps(
                {
                    "id": e.id,
                    "source_id": e.source_id,
                    "dt": micros(e.dt) / 1e6,
                    "level": e.level,
                    "service": e.service,
                    "message": e.message,
                    "attributes": e.attributes,
                    "raw": e.raw.decode(),
                }
            )
            for e in batch
        )
        self.db.query("INSERT INTO logs FORMAT JSONEachRow\n" + rows.decode())

    def _q(self, sql: str) -> list[Any]:
        rows: list[Any] = json.loads(self.db.query(sql, "JSONCompact").data())["data"]
        return rows

    def _window(self, hours: int) -> str:
        since = micros(NOW - timedelta(hours=hours)) / 1e6
        return f"dt >= fromUnixTimestamp64Micro({int(since * 1e6)}) AND dt < fromUnixTimestamp64Micro({micros(NOW)})"

    def newest(self) -> list[Any]:
        return self._q(
            f"SELECT id, source_id, dt, raw FROM logs WHERE source_id = 1 AND {self._window(1)} "
            "ORDER BY dt DESC, id DESC LIMIT 100"
        )

    def word(self, word: str) -> list[Any]:
        return self._q(
            f"SELECT id, source_id, dt, raw FROM logs WHERE source_id = 1 AND {self._window(24)} "
            f"AND (positionCaseInsensitiveUTF8(message, '{word}') > 0 OR arrayExists("
            f"v -> positionCaseInsensitiveUTF8(v, '{word}') > 0, mapValues(attributes))) "
            "ORDER BY dt DESC, id DESC LIMIT 100"
        )

    def field(self, path: str, value: str) -> list[Any]:
        return self._q(
            f"SELECT id, source_id, dt, raw FROM logs WHERE source_id = 1 AND {self._window(24)} "
            f"AND lower(attributes['{path}']) = lower('{value}') "
            "ORDER BY dt DESC, id DESC LIMIT 100"
        )

    def close(self) -> None:
        self.db.query("OPTIMIZE TABLE logs FINAL")
        self.db.close()


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, int]:
    """p50 and p99 (ms) of fn over repeat runs, after one warm-up; and its row count."""
    rows = len(fn())
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return statistics.median(times), p99, rows


def run(engine: Engine, count: int, repeat: int) -> dict[str, Any]:
    started = time.perf_counter()
    for batch in batches(count):
        engine.append(batch)
    ingest = time.perf_counter() - started
    result: dict[str, Any] = {
        "engine": engine.name,
        "events_per_s": round(count / ingest),
    }
    for label, fn in (
        ("newest", engine.newest),
        ("word_rare", lambda: engine.word(RARE)),
        ("word_absent", lambda: engine.word(ABSENT)),
        ("field", lambda: engine.field("context.user.id", USER)),
    ):
        p50, p99, rows = timed(fn, repeat)
        result[label] = {"p50_ms": round(p50, 1), "p99_ms": round(p99, 1), "rows": rows}
    engine.close()
    result["bytes_per_event"] = round(disk_bytes(engine.folder) / count, 1)
    result["install_mb"] = round(install_bytes(*engine.modules) / 1e6, 1)
    return result


def make(name: str, folder: Path) -> Engine:
    if name == "sqlite-fts":
        return SQLiteEngine(folder, fts=True)
    if name == "sqlite":
        return SQLiteEngine(folder, fts=False)
    if name == "duckdb":
        return DuckDBEngine(folder)
    if name == "chdb":
        return ChDBEngine(folder)
    raise SystemExit(f"unknown engine {name}")


def store_run(count: int, repeat: int, folder: Path) -> dict[str, Any]:
    """The same through Watchpost's embedded store (open_store), batches of 1,000."""
    from watchpost.logs.events import LogEvent
    from watchpost.logs.store import Field, Search, Word, open_store
    from watchpost.settings import Settings

    async def main() -> dict[str, Any]:
        store = open_store(Settings(data_dir=folder, logs_url=""))
        started = time.perf_counter()
        for batch in batches(count):
            await store.append(
                [
                    LogEvent(
                        id=e.id,
                        source_id=e.source_id,
                        team_id=1,
                        dt=e.dt,
                        level=e.level,
                        service=e.service,
                        message=e.message,
                        attributes=e.attributes,
                        raw=e.raw,
                    )
                    for e in batch
                ]
            )
        ingest = time.perf_counter() - started
        result: dict[str, Any] = {
            "engine": "Watchpost store",
            "events_per_s": round(count / ingest),
        }
        day = NOW - timedelta(hours=24)
        searches = {
            "newest": Search([1], since=NOW - timedelta(hours=1), until=NOW),
            "word_rare": Search([1], [Word(RARE)], since=day, until=NOW),
            "word_absent": Search([1], [Word(ABSENT)], since=day, until=NOW),
            "field": Search([1], [Field("context.user.id", USER)], since=day, until=NOW),
        }
        for label, search in searches.items():
            rows = len(await store.search(search))
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                await store.search(search)
                times.append((time.perf_counter() - t) * 1000)
            times.sort()
            p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
            result[label] = {
                "p50_ms": round(statistics.median(times), 1),
                "p99_ms": round(p99, 1),
                "rows": rows,
            }
        await store.close()
        result["bytes_per_event"] = round(disk_bytes(folder) / count, 1)
        return result

    return asyncio.run(main())


def concurrent_run(count: int, tasks: int, folder: Path) -> dict[str, Any]:
    """Watchpost's store taking batches of 1,000 from `tasks` concurrent appenders (what
    several ingest requests at once do): the writer joins what waits into one commit."""
    from watchpost.logs.events import LogEvent
    from watchpost.logs.store import open_store
    from watchpost.settings import Settings

    async def main() -> dict[str, Any]:
        store = open_store(Settings(data_dir=folder, logs_url=""))
        queue = list(batches(count))

        async def appender() -> None:
            while queue:
                batch = queue.pop()
                await store.append(
                    [
                        LogEvent(
                            e.id,
                            e.source_id,
                            1,
                            e.dt,
                            e.level,
                            e.service,
                            e.message,
                            e.attributes,
                            e.raw,
                        )
                        for e in batch
                    ]
                )

        started = time.perf_counter()
        await asyncio.gather(*(appender() for _ in range(tasks)))
        elapsed = time.perf_counter() - started
        await store.close()
        return {
            "engine": f"Watchpost store, {tasks} appenders",
            "events_per_s": round(count / elapsed),
        }

    return asyncio.run(main())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--engines", default="sqlite-fts,sqlite,duckdb,chdb", help="comma-separated"
    )
    parser.add_argument("--store", action="store_true", help="also Watchpost's own store")
    parser.add_argument(
        "--concurrent", type=int, default=0, help="only: the store's ingest from N appenders"
    )
    args = parser.parse_args()
    print(
        f"# {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{args.events:,} events",
        flush=True,
    )
    if args.concurrent:
        folder = Path(tempfile.mkdtemp(prefix="logs-bench-concurrent-"))
        try:
            print(json.dumps(concurrent_run(args.events, args.concurrent, folder)), flush=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    for name in args.engines.split(","):
        folder = Path(tempfile.mkdtemp(prefix=f"logs-bench-{name}-"))
        try:
            print(json.dumps(run(make(name, folder), args.events, args.repeat)), flush=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if args.store:
        folder = Path(tempfile.mkdtemp(prefix="logs-bench-store-"))
        try:
            print(json.dumps(store_run(args.events, args.repeat, folder)), flush=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
