# ruff: noqa: S608  (hand-written SQL of the bench: constants and dates only)
"""Logs query benchmark: the issue's three searches through the HTTP API (GET /api/v1/query on
a real uvicorn server), through the store's interface (LogStore.search) and by hand on the raw
engine (the ceiling), on the same data.

Data: --events events (default 200,000; --full for the issue's 10,000,000) of one source,
spread evenly over the 24 hours before a fixed "now", appended through the store in batches of
1,000. One in 1,000 holds the word "kaboom" in its message, 40 spread over the day the word
"zugzwang"; context.user.id is "4242" for about 10 events. The searches (each run --repeat
times, p50 and p99 reported):

- newest:  the newest 100 of the last hour;
- word:    the newest 100 over 24 h containing "kaboom" (case-insensitive, message or any
           attribute value);
- rare:    the newest 100 over 24 h containing "zugzwang": fewer than 100 match, so every
           row of the day is read (the word search's worst case);
- field:   the newest 100 over 24 h with context.user.id:4242.

The store is the embedded one (DuckDB) unless --logs-url names a ClickHouse server. Run from
the repository root:  PYTHONPATH=src .venv/bin/python bench/logs_query_bench.py [--full]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvicorn

from watchpost.app import create_app
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.db.migrate import upgrade
from watchpost.logs.events import LogEvent, new_event_ids
from watchpost.logs.query_language import parse
from watchpost.logs.store import LogStore, Search, open_store
from watchpost.settings import Settings
from watchpost.teams.service import create_token

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
BATCH = 1000
WORDS = ["request", "served", "user", "login", "cache", "miss", "retry", "upstream", "job"]


def events(count: int, source_id: int, team_id: int) -> Iterator[list[LogEvent]]:
    rng = random.Random(7)
    step = timedelta(days=1) / count
    start = NOW - timedelta(days=1)
    batch: list[LogEvent] = []
    for n in range(count):
        dt = start + step * n
        words = " ".join(rng.choice(WORDS) for _ in range(6))
        message = f"{words} kaboom" if n % 1000 == 500 else words
        if n % max(1, count // 40) == count // 80:
            message += " zugzwang"
        user = "4242" if n % max(1, count // 10) == 7 else str(rng.randrange(100_000))
        level = "error" if n % 50 == 0 else "info"
        body = {
            "dt": dt.isoformat(),
            "message": message,
            "level": level,
            "context": {"user": {"id": user}, "runtime": {"file": "app.py"}},
        }
        attributes = {
            "message": message,
            "level": level,
            "dt": dt.isoformat(),
            "context.user.id": user,
            "context.runtime.file": "app.py",
        }
        batch.append(
            LogEvent(0, source_id, team_id, dt, level, "", message, attributes, orjson.dumps(body))
        )
        if len(batch) == BATCH:
            yield with_ids(batch)
            batch = []
    if batch:
        yield with_ids(batch)


def with_ids(batch: list[LogEvent]) -> list[LogEvent]:
    """The events with new ids, taken now."""
    ids = new_event_ids(len(batch))
    return [
        LogEvent(
            i, e.source_id, e.team_id, e.dt, e.level, e.service, e.message, e.attributes, e.raw
        )
        for i, e in zip(ids, batch, strict=True)
    ]


SEARCHES: dict[str, tuple[str, timedelta]] = {
    "newest": ("", timedelta(hours=1)),
    "word": ("kaboom", timedelta(days=1)),
    "rare": ("zugzwang", timedelta(days=1)),
    "field": ("context.user.id:4242", timedelta(days=1)),
}


def timed(fn: Callable[[], int], repeat: int) -> dict[str, float]:
    fn()  # warm
    samples = []
    rows = 0
    for _ in range(repeat):
        began = time.perf_counter()
        rows = fn()
        samples.append((time.perf_counter() - began) * 1000)
    samples.sort()
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]
    return {"p50_ms": round(statistics.median(samples), 2), "p99_ms": round(p99, 2), "rows": rows}


@contextmanager
def serving(settings: Settings) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = create_app(settings, clock=FrozenClock(NOW))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


async def setup(settings: Settings, count: int) -> tuple[str, int, float]:
    ctx = AppContext.build(settings, FrozenClock(NOW))
    try:
        async with ctx.db.write_sessions() as session, session.begin():
            token = await create_token(session, team_name="bench", now=NOW)
        transport = httpx.ASGITransport(app=create_app(settings))
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            response = await client.post(
                "/api/v1/sources",
                json={"name": "app", "platform": "python"},
                headers={"Authorization": f"Bearer {token}"},
            )
        source = response.json()["data"]
        source_id, team_id = int(source["id"]), int(source["attributes"]["team_id"])
        store = open_store(settings)
        began = time.perf_counter()
        for batch in events(count, source_id, team_id):
            await store.append(batch)
        rate = count / (time.perf_counter() - began)
        await store.close()
        return token, source_id, rate
    finally:
        await ctx.logs.close()
        await ctx.db.dispose()


def through_api(url: str, token: str, source_id: int, repeat: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as client:
        for name, (query, span) in SEARCHES.items():
            params = {
                "source_ids": str(source_id),
                "query": query,
                "batch": "100",
                "from": (NOW - span).isoformat(),
                "to": NOW.isoformat(),
            }

            def call(params: dict[str, str] = params) -> int:
                response = client.get("/api/v1/query", params=params)
                assert response.status_code == 200, response.text
                return len(response.json()["data"])

            results[name] = timed(call, repeat)
    return results


def through_store(store: LogStore, source_id: int, repeat: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    loop = asyncio.new_event_loop()
    try:
        for name, (query, span) in SEARCHES.items():
            search = Search([source_id], parse(query), since=NOW - span, until=NOW, limit=100)

            def call(search: Search = search) -> int:
                return len(loop.run_until_complete(store.search(search)))

            results[name] = timed(call, repeat)
        loop.run_until_complete(store.close())
    finally:
        loop.close()
    return results


def by_hand_duckdb(path: Path, source_id: int, repeat: int) -> dict[str, Any]:
    """The same searches written by hand on the day tables: the newest day first, an older
    day only while fewer than 100 rows were found (the plan a person would write)."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    listed = con.execute("SELECT table_name FROM information_schema.tables").fetchall()
    names = {row[0] for row in listed}

    def days(span: timedelta) -> list[str]:
        day, found = NOW.date(), []
        while day >= (NOW - span).date():
            if f"logs_{day:%Y%m%d}" in names:
                found.append(f"logs_{day:%Y%m%d}")
            day -= timedelta(days=1)
        return found

    conditions = {
        "newest": "true",
        "word": "contains(text, 'kaboom')",
        "rare": "contains(text, 'zugzwang')",
        "field": "\"a.context.user.id\" = '4242'",  # the column holds lower-cased values
    }
    results: dict[str, Any] = {}
    for name, (_, span) in SEARCHES.items():
        since = (NOW - span).replace(tzinfo=None)
        until = NOW.replace(tzinfo=None)
        statements = [
            f"SELECT id, source_id, dt, raw FROM {table} WHERE source_id = {source_id} "
            f"AND dt >= TIMESTAMP '{since}' AND dt < TIMESTAMP '{until}' AND {conditions[name]} "
            "ORDER BY dt DESC, id DESC LIMIT 100"
            for table in days(span)
        ]

        def call(statements: list[str] = statements) -> int:
            rows: list[Any] = []
            for sql in statements:
                rows += con.execute(sql).fetchall()[: 100 - len(rows)]
                if len(rows) == 100:
                    break
            return len(rows)

        results[name] = timed(call, repeat)
    con.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--full", action="store_true", help="10,000,000 events (the issue's)")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument(
        "--logs-url", default="", help="a ClickHouse store instead (clickhouse://…)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    args = parser.parse_args()
    count = 10_000_000 if args.full else args.events
    with tempfile.TemporaryDirectory(prefix="watchpost-logs-query-bench-") as folder:
        data = Path(folder)
        settings = Settings(
            database_url=f"sqlite:///{data / 'watchpost.db'}",
            data_dir=data,
            logs_url=args.logs_url,
            rate_limit_per_minute=0,
        )
        upgrade(settings.async_database_url)
        token, source_id, rate = asyncio.run(setup(settings, count))
        with serving(settings) as url:
            api = through_api(url, token, source_id, args.repeat)
        store = through_store(open_store(settings), source_id, args.repeat)
        raw = (
            None
            if args.logs_url
            else by_hand_duckdb(data / "logs" / "logs.duckdb", source_id, args.repeat)
        )
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "date": datetime.now(UTC).date().isoformat(),
        "engine": "clickhouse" if args.logs_url else "embedded (DuckDB)",
        "events": count,
        "append_events_per_s": round(rate),
        "api": api,
        "store": store,
        "by_hand": raw,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['engine']}, {count:,} events, appended at {rate:,.0f}/s; {report['machine']}")
    print(
        f"{'search':8} {'API p50/p99 ms':>18} {'store p50/p99 ms':>18} {'by hand p50/p99 ms':>20}"
    )
    for name in SEARCHES:
        cells = [api[name], store[name], raw[name] if raw else None]
        text = [f"{c['p50_ms']:.1f} / {c['p99_ms']:.1f}" if c else "-" for c in cells]
        print(f"{name:8} {text[0]:>18} {text[1]:>18} {text[2]:>20}   rows {api[name]['rows']}")


if __name__ == "__main__":
    main()
