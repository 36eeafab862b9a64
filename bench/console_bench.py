"""Console overview benchmark: the overview's data at `--monitors` monitors (default 10,000).

Builds a throw-away database (SQLite; PostgreSQL with --postgres, in a schema of its own
that is dropped afterwards) migrated to the newest schema, with one team holding the
monitors: a third of them down, each with 30 days of history in the rollup tables (hourly
and daily, as history.service.record leaves them) and a last observation; one monitor has
365 days. The history is written by the database itself (INSERT … SELECT from a small
template of one monitor's buckets, varied per monitor), so 7 million rollups take seconds.

Then, in-process (no HTTP), each case runs `--runs` times one after another after a few
warm-up runs: wall time per call, p50 and p99. The cases are the overview's first page, a
filtered search, the search that finds the 365-day monitor, and beside them the bare
ceiling: the cheapest indexed page of the same table
(`SELECT id, pronounceable_name FROM monitors WHERE team_id = ? ORDER BY id LIMIT 50`)
through the same session.

`measure(label, fn)` times any async callable the same way and `results_table` prints the
rows, so the full HTML page can be added beside these once it exists.

    .venv/bin/python bench/console_bench.py [--monitors 10000] [--runs 200]
        [--postgres [URL]]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import platform
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # this checkout's code

from sqlalchemy import insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession

import console_pages
from watchpost.console.overview_data import OverviewFilter, overview
from watchpost.db.migrate import upgrade
from watchpost.db.session import Database, create_engine
from watchpost.history.models import CheckRollup, LastObservation
from watchpost.monitors.models import Monitor
from watchpost.setting_values import to_async_url
from watchpost.teams.models import Team

DEFAULT_POSTGRES_URL = "postgresql://root@127.0.0.1:5432/test"
HISTORY_DAYS = 30
LONG_DAYS = 365
WARMUP = 5
NOW = datetime(2026, 11, 20, 12, 30, tzinfo=UTC)


# ------------------------------------------------------------------------------ timing


@dataclass(frozen=True)
class Result:
    label: str
    runs: int
    p50_ms: float
    p99_ms: float
    cpu_p50_ms: float
    cpu_p99_ms: float
    note: str = ""


def percentile(sorted_seconds: list[float], pct: float) -> float:
    """Nearest-rank percentile, in milliseconds."""
    if not sorted_seconds:
        return math.nan
    rank = max(1, math.ceil(pct / 100 * len(sorted_seconds)))
    return sorted_seconds[rank - 1] * 1000


async def measure(
    label: str, fn: Callable[[], Awaitable[Any]], *, runs: int, note: str = ""
) -> Result:
    """Wall and process CPU time of `fn()` over `runs` calls one after another (after
    WARMUP unmeasured ones); the collector runs between calls, not inside them. On a busy
    machine the CPU time is the steadier of the two (SQLite runs in this process, so its
    work is in it; PostgreSQL's is not)."""
    for _ in range(WARMUP):
        await fn()
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        start, start_cpu = time.perf_counter(), time.process_time()
        await fn()
        cpu.append(time.process_time() - start_cpu)
        times.append(time.perf_counter() - start)
        gc.enable()
    times.sort()
    cpu.sort()
    return Result(
        label,
        runs,
        percentile(times, 50),
        percentile(times, 99),
        percentile(cpu, 50),
        percentile(cpu, 99),
        note,
    )


def results_table(results: list[Result]) -> str:
    lines = [
        "| case | runs | p50 ms | p99 ms | CPU p50 ms | CPU p99 ms | note |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    lines += [
        f"| {r.label} | {r.runs} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | {r.cpu_p50_ms:.2f}"
        f" | {r.cpu_p99_ms:.2f} | {r.note} |"
        for r in results
    ]
    return "\n".join(lines)


def machine() -> str:
    return (
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, {platform.machine()}, {platform.system()}, "
        f"{datetime.now(UTC):%Y-%m-%d}"
    )


# ------------------------------------------------------------------------------ database


@contextmanager
def database(postgres: str | None) -> Iterator[str]:
    """A migrated, empty database as an async URL: a SQLite file in a temporary folder, or
    a new schema of the PostgreSQL server (dropped afterwards)."""
    if postgres is None:
        folder = Path(tempfile.mkdtemp(prefix="console-bench-"))
        try:
            url = to_async_url(f"sqlite:///{folder / 'watchpost.db'}")
            upgrade(url)
            yield url
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    import psycopg

    schema = f"console_bench_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(postgres, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in postgres else "?"
    try:
        url = to_async_url(postgres + separator + "options=" + quote(f"-csearch_path={schema}"))
        upgrade(url)
        yield url
    finally:
        with psycopg.connect(postgres, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def is_down(number: int) -> bool:
    return number % 3 == 0


async def seed(db: Database, monitors: int) -> tuple[int, int]:
    """The team and its monitors with their history; (team id, the 365-day monitor's id)."""
    async with db.write_sessions() as session, session.begin():
        team_id = (
            await session.execute(
                insert(Team).values(name="bench", created_at=NOW).returning(Team.id)
            )
        ).scalar_one()
        await insert_monitors(session, team_id, monitors)
        await session.execute(
            insert(Team).values(name="neighbours", created_at=NOW).returning(Team.id)
        )
        ids = list(await session.scalars(select(Monitor.id).order_by(Monitor.id)))
        await history(session, team_id)
    return team_id, ids[len(ids) // 2]


async def insert_monitors(session: AsyncSession, team_id: int, count: int) -> None:
    created = NOW - timedelta(days=HISTORY_DAYS + 5)
    rows = []
    for n in range(1, count + 1):
        down = is_down(n)
        rows.append(
            {
                "team_id": team_id,
                "monitor_type": "status",
                "url": f"https://service-{n}.example.com/health",
                "pronounceable_name": f"Service {n}",
                "check_frequency": 180,
                "confirmation_period": 0,
                "recovery_period": 180,
                "request_timeout": 30,
                "status": "down" if down else "up",
                "check_status": "down" if down else "up",
                "failing_since": NOW - timedelta(minutes=n % 600) if down else None,
                "last_checked_at": NOW - timedelta(seconds=60),
                "next_check_at": NOW + timedelta(seconds=120),
                "created_at": created,
                "updated_at": created,
            }
        )
    for start in range(0, len(rows), 5000):
        await session.execute(insert(Monitor), rows[start : start + 5000])


def template(days: int, *, down: bool) -> list[dict[str, Any]]:
    """One monitor's buckets for `days` days up to NOW (profile 1: down since the last
    hours, with failures; 0: up, a failure now and then)."""
    profile = int(down)
    rows: list[dict[str, Any]] = []
    hour_now = NOW.replace(minute=0, second=0, microsecond=0)
    hours = days * 24
    for back in range(hours):
        start = hour_now - timedelta(hours=back)
        seconds = 1800.0 if back == 0 else 3600.0
        failing = (down and back < 6) or back % 97 == 13
        failures = 20 if failing else 0
        checks = 10 if back == 0 else 20
        rows.append(
            {
                "profile": profile,
                "granularity": "hour",
                "period_start": start,
                "up_s": 0.0 if failing else seconds,
                "down_s": seconds if failing else 0.0,
                "checks": checks,
                "failures": min(failures, checks),
                "latency_sum": 120.0 * checks + back % 17,
                "latency_count": checks,
            }
        )
    names = ("up_s", "down_s", "checks", "failures", "latency_sum", "latency_count")
    days_of: dict[datetime, dict[str, Any]] = {}
    for row in list(rows):
        day = row["period_start"].replace(hour=0)
        if day not in days_of:
            days_of[day] = {"profile": profile, "granularity": "day", "period_start": day}
            days_of[day] |= dict.fromkeys(names, 0)
            rows.append(days_of[day])
        for name in names:
            days_of[day][name] += row[name]
    return rows


async def history(session: AsyncSession, team_id: int) -> None:
    """Every monitor's rollups from its profile's template, one INSERT … SELECT each; the
    365-day monitor's older buckets; each monitor's last observation."""
    moment = "TEXT" if session.get_bind().dialect.name == "sqlite" else "TIMESTAMPTZ"
    await session.execute(
        text(
            "CREATE TABLE bench_template (profile INTEGER, granularity VARCHAR(4),"
            f" period_start {moment}, up_s FLOAT, down_s FLOAT, checks INTEGER,"
            " failures INTEGER, latency_sum FLOAT, latency_count INTEGER)"
        )
    )
    rows = template(HISTORY_DAYS, down=False) + template(HISTORY_DAYS, down=True)
    stored = [{**row, "period_start": sqlish(session, row["period_start"])} for row in rows]
    await session.execute(
        text(
            "INSERT INTO bench_template VALUES (:profile, :granularity, :period_start, :up_s,"
            " :down_s, :checks, :failures, :latency_sum, :latency_count)"
        ),
        stored,
    )
    if (
        session.get_bind().dialect.name == "sqlite"
    ):  # a throw-away file: no durability, and the index built once at the end
        await session.execute(text("PRAGMA cache_size = -262144"))
    await session.execute(text("DROP INDEX ix_check_rollups_granularity_period_start"))
    await session.execute(
        text(
            "INSERT INTO check_rollups (subject_type, subject_id, granularity, period_start,"
            " team_id, up_s, down_s, maintenance_s, checks, failures, latency_sum,"
            " latency_count, latency_min, latency_max)"
            " SELECT 'monitor', m.id, t.granularity, t.period_start, m.team_id, t.up_s,"
            " t.down_s, 0, t.checks, t.failures, t.latency_sum + (m.id % 89) * t.latency_count,"
            " t.latency_count, 80, 400"
            " FROM monitors m JOIN bench_template t"
            " ON t.profile = (CASE WHEN m.status = 'down' THEN 1 ELSE 0 END)"
            " WHERE m.team_id = :team ORDER BY m.id, t.granularity, t.period_start"
        ),
        {"team": team_id},
    )
    await session.execute(text("DROP TABLE bench_template"))
    await session.execute(
        text(
            "CREATE INDEX ix_check_rollups_granularity_period_start"
            " ON check_rollups (granularity, period_start)"
        )
    )
    await session.execute(
        text(
            "INSERT INTO check_last_observations (subject_type, subject_id, team_id, at, state,"
            " valid_for_s, latency_ms) SELECT 'monitor', m.id, m.team_id, :at, m.status, 360,"
            " 100 + (m.id % 89) FROM monitors m WHERE m.team_id = :team"
        ),
        {"team": team_id, "at": sqlish(session, NOW - timedelta(seconds=60))},
    )


def sqlish(session: AsyncSession, moment: datetime) -> Any:
    """A moment as the UTC columns store it on this backend (db/base.py UTCDateTime)."""
    if session.get_bind().dialect.name == "sqlite":
        return moment.astimezone(UTC).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")
    return moment


async def long_history(db: Database, team_id: int, monitor_id: int) -> None:
    """The older 335 days of the 365-day monitor (its last 30 are already there)."""
    rows = [
        row
        for row in template(LONG_DAYS, down=False)
        if row["period_start"] < NOW - timedelta(days=HISTORY_DAYS + 1)
    ]
    async with db.write_sessions() as session, session.begin():
        await session.execute(
            insert(CheckRollup),
            [
                {
                    **{k: v for k, v in row.items() if k != "profile"},
                    "subject_type": "monitor",
                    "subject_id": monitor_id,
                    "team_id": team_id,
                }
                for row in rows
            ],
        )


# ------------------------------------------------------------------------------ running


@asynccontextmanager
async def reading(db: Database) -> AsyncIterator[AsyncSession]:
    async with db.read_sessions() as session:
        yield session


async def run(url: str, args: argparse.Namespace) -> list[Result]:
    db = Database(create_engine(url))
    try:
        started = time.perf_counter()
        team_id, long_id = await seed(db, args.monitors)
        await long_history(db, team_id, long_id)
        async with db.write_sessions() as session, session.begin():
            await session.execute(text("ANALYZE"))  # as a long-running database would be
        async with db.read_sessions() as session:
            rollups = await session.scalar(select(text("count(*)")).select_from(CheckRollup))
            lasts = await session.scalar(select(text("count(*)")).select_from(LastObservation))
        print(
            f"seeded {args.monitors} monitors ({args.monitors // 3} down), {rollups} rollups,"
            f" {lasts} last observations in {time.perf_counter() - started:.1f} s"
        )
        first_page = OverviewFilter()
        searched = OverviewFilter(search="service-1", states=frozenset({"down", "up"}))
        long_name = f"Service {long_id}"

        async def page(flt: OverviewFilter) -> int:
            async with reading(db) as session:
                found = await overview(session, team_id=team_id, flt=flt, now=NOW)
            assert found.rows, "the bench page is empty"
            return found.total

        async def ceiling() -> None:
            async with reading(db) as session:
                rows = await session.execute(
                    select(Monitor.id, Monitor.pronounceable_name)
                    .where(Monitor.team_id == team_id)
                    .order_by(Monitor.id)
                    .limit(50)
                )
                assert len(rows.all()) == min(50, args.monitors)

        totals = {
            "first": await page(first_page),
            "search": await page(searched),
            "long": await page(OverviewFilter(search=long_name)),
        }
        results = [
            await measure("bare ceiling (indexed page of 50 ids, names)", ceiling, runs=args.runs),
            await measure(
                "overview: first page (50 rows, sort by state)",
                lambda: page(first_page),
                runs=args.runs,
                note=f"{totals['first']} rows match",
            ),
            await measure(
                'overview: search "service-1", state down or up',
                lambda: page(searched),
                runs=args.runs,
                note=f"{totals['search']} rows match",
            ),
            await measure(
                "overview: search finding the 365-day monitor",
                lambda: page(OverviewFilter(search=long_name)),
                runs=args.runs,
                note=f"{totals['long']} rows match",
            ),
        ]
        results += await http_cases(
            url, team_id, long_id, args.runs, status_editor=args.status_editor
        )
        return results
    finally:
        await db.dispose()


async def http_cases(
    url: str, team_id: int, long_id: int, runs: int, *, status_editor: bool = False
) -> list[Result]:
    """The pages as a browser gets them (bench/console_pages.py), with their sizes."""
    client = await console_pages.signed_in_client(url, team_id, NOW)
    try:
        cases = [
            ("HTTP: bare ceiling (GET /healthz, same stack)", "/healthz"),
            ("HTTP: overview, first page", "/"),
            ('HTTP: overview, search "service-1", down or up', "/?q=service-1&state=down&state=up"),
            ("HTTP: monitor page, 365 days of history", f"/monitors/{long_id}"),
        ]
        found = []
        for label, path in cases:
            sizes: list[int] = []
            result = await measure(label, console_pages.page(client, path, sizes), runs=runs)
            found.append(
                replace(
                    result, note=f"{max(sizes) / 1024:.0f} KB of HTML" if path != "/healthz" else ""
                )
            )
        if status_editor:
            found += await status_page_cases(client, team_id, runs)
        return found
    finally:
        await console_pages.database_of(client).dispose()
        await console_pages.close(client)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--monitors", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument(
        "--postgres",
        nargs="?",
        const=os.environ.get("WATCHPOST_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL),
        default=None,
        help="run on PostgreSQL (default URL: $WATCHPOST_TEST_POSTGRES_URL or the test server)",
    )
    parser.add_argument(
        "--logs",
        type=int,
        default=0,
        metavar="EVENTS",
        help="bench the log explorer and live tail instead, over EVENTS events (10000000: "
        "the issue's); --runs then counts each page's runs",
    )
    parser.add_argument(
        "--tail-rate", type=int, default=5000, help="events a second sent during the tail bench"
    )
    parser.add_argument("--tail-seconds", type=float, default=20.0)
    parser.add_argument(
        "--status-editor",
        action="store_true",
        help=f"also the status page editor of a page with {EDITOR_RESOURCES} resources and the"
        f" list of {LISTED_PAGES} status pages, over HTTP (beside the bare ceiling again)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.monitors < 3:
        raise SystemExit("--monitors must be at least 3")
    backend = "PostgreSQL" if args.postgres else "SQLite"
    if args.logs:
        return logs_main(args, backend)
    with database(args.postgres) as url:
        results = asyncio.run(run(url, args))
    print(f"\nConsole overview, {args.monitors} monitors, {backend}; {machine()}\n")
    print(results_table(results))
    return 0


# ------------------------------------------------------------------------------ logs
#
# `--logs EVENTS`: the log explorer (/logs) and its live tail over EVENTS events of one
# source on the embedded store (DuckDB), spread over the 24 hours before a fixed "now"
# (logs_query_bench.events: one in 1,000 with "kaboom", context.user.id 4242 for about 10),
# appended through the store in batches of LOGS_BATCH. The app and the signed-in owner are
# those of console_pages (the whole stack in-process), the people on SQLite or PostgreSQL.
# Cases, each --runs times: the explorer's first page over 24 h (its 50 newest events and
# its histogram), the same with a field filter, the 7-day page and the 7-day histogram alone,
# each beside its ceiling: the query API's own first page (GET /api/v1/query, batch 50) for
# the same search through the same stack. Then the live tail on a real server (uvicorn on
# this event loop): --tail-rate events a second appended for --tail-seconds while one
# browser's stream (GET /logs/tail/events) is read; what reached it, what it was told was
# skipped, and what neither accounts for.

LOGS_BATCH = 20_000
EXPLORER_PAGE = 50


async def logs_people(
    url: str, data: Path, now: datetime
) -> tuple[Any, httpx.AsyncClient, str, int]:
    """The app (store in `data`), a client signed in as its team's owner, the team's API
    token and its source's id."""
    from watchpost.app import build_app
    from watchpost.clock import FrozenClock
    from watchpost.context import AppContext
    from watchpost.people import accounts
    from watchpost.settings import Settings
    from watchpost.teams.service import create_token

    settings = Settings(
        database_url=url, data_dir=data, secret_key="bench key " * 4, rate_limit_per_minute=0
    )
    ctx = AppContext.build(settings, FrozenClock(now))
    app = build_app(ctx)
    async with ctx.db.write_sessions() as session, session.begin():
        token = await create_token(session, team_name="bench", now=now)
        team = await session.scalar(select(Team).where(Team.name == "bench"))
        assert team is not None
        user, _ = await accounts.add_person(
            session, team=team, email="bench@example.com", name="Bench", role="owner", now=now
        )
        await accounts.set_password(session, user, console_pages.PASSWORD, now)
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://bench.example"
    )
    made = await client.post(
        "/api/v1/sources",
        json={"name": "app", "platform": "python"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert made.status_code == 201, made.text[:300]
    source_id = int(made.json()["data"]["id"])
    answer = await client.post(
        "/login", data={"email": "bench@example.com", "password": console_pages.PASSWORD}
    )
    assert answer.status_code == 303, answer.text[:300]
    return app, client, token, source_id


async def logs_append(store: Any, count: int, source_id: int, team_id: int) -> float:
    """Appends the events (logs_query_bench's) in batches of LOGS_BATCH; events a second."""
    import logs_query_bench

    began = time.perf_counter()
    pending: list[Any] = []
    for batch in logs_query_bench.events(count, source_id, team_id):
        pending += batch
        if len(pending) >= LOGS_BATCH:
            await store.append(pending)
            pending = []
    if pending:
        await store.append(pending)
    return count / (time.perf_counter() - began)


def api_page(
    client: httpx.AsyncClient, token: str, params: dict[str, str], rows: list[int]
) -> Callable[[], Awaitable[Any]]:
    """The query API's own first page (the ceiling of an explorer page)."""

    async def get() -> None:
        answer = await client.get(
            "/api/v1/query", params=params, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 200, answer.text[:300]
        rows.append(len(answer.json()["data"]))

    return get


async def logs_run(url: str, data: Path, args: argparse.Namespace) -> tuple[list[Result], str]:
    import logs_query_bench
    from watchpost.console.logs_histogram import histogram
    from watchpost.logs.query_language import parse
    from watchpost.logs.store import Search

    now = logs_query_bench.NOW
    app, client, token, source_id = await logs_people(url, data, now)
    ctx = app.state.ctx
    try:
        team_id = int(
            (
                await client.get(
                    f"/api/v1/sources/{source_id}", headers={"Authorization": f"Bearer {token}"}
                )
            ).json()["data"]["attributes"]["team_id"]
        )
        started = time.perf_counter()
        rate = await logs_append(ctx.logs, args.logs, source_id, team_id)
        print(
            f"appended {args.logs:,} events in {time.perf_counter() - started:.0f} s"
            f" ({rate:,.0f} events/s)",
            flush=True,
        )
        field = "context.user.id:4242"
        until = now.replace(microsecond=0) + timedelta(seconds=1)  # as the explorer's preset
        results: list[Result] = []
        cases = [
            ("24 h", "24h", "", timedelta(hours=24)),
            (f"24 h, {field}", "24h", field, timedelta(hours=24)),
            ("7 d", "7d", "", timedelta(days=7)),
        ]
        for name, preset, query, span in cases:
            rows: list[int] = []
            params = {
                "source_ids": str(source_id),
                "query": query,
                "batch": str(EXPLORER_PAGE),
                "from": (now - span).isoformat(),
                "to": until.isoformat(),
            }
            ceiling = await measure(
                f"ceiling: GET /api/v1/query, {name}, first {EXPLORER_PAGE}",
                api_page(client, token, params, rows),
                runs=args.runs,
            )
            results.append(replace(ceiling, note=f"{rows[-1]} rows"))
            sizes: list[int] = []
            path = f"/logs?source={source_id}&range={preset}" + (
                f"&q={quote(query)}" if query else ""
            )
            shown = await measure(
                f"explorer: GET /logs, {name} (first page + histogram)",
                console_pages.page(client, path, sizes),
                runs=args.runs,
            )
            results.append(replace(shown, note=f"{max(sizes) / 1024:.0f} KB of HTML"))
        week = Search(
            source_ids=[source_id],
            terms=parse(""),
            since=now - timedelta(days=7),
            until=until,
            newest_first=True,
            limit=EXPLORER_PAGE,
        )
        counted: list[int] = []

        async def week_histogram() -> None:
            found = await histogram(ctx.logs, week)
            assert found is not None
            counted.append(found.total)

        drawn = await measure("histogram alone, 7 d", week_histogram, runs=args.runs)
        results.append(replace(drawn, note=f"{counted[-1]:,} events counted"))
        tail = await logs_tail(app, client, source_id, team_id, args)
        return results, tail
    finally:
        await client.aclose()
        await ctx.logs.close()
        await ctx.db.dispose()


async def logs_tail(
    app: Any, client: httpx.AsyncClient, source_id: int, team_id: int, args: argparse.Namespace
) -> str:
    """One browser's live tail while --tail-rate events a second arrive."""
    import socket
    from contextlib import suppress

    import uvicorn

    import logs_query_bench
    from watchpost.console.auth import COOKIE
    from watchpost.console.logs import TAIL_LINES_PER_S

    store = app.state.ctx.logs
    cookie = client.cookies.get(COOKIE)
    assert cookie, "not signed in"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, lifespan="off"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(1500):
        if server.started or serving.done():
            break
        await asyncio.sleep(0.01)
    assert server.started, "uvicorn did not start"
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    shown = skipped = sent = 0
    stop = asyncio.Event()
    started = asyncio.Event()

    async def produce() -> None:
        nonlocal sent
        await started.wait()
        tick = 0.1
        per_tick = max(1, round(args.tail_rate * tick))
        began = time.monotonic()
        made = logs_query_bench.events(10**9, source_id, team_id)  # endless enough
        waiting: list[Any] = []
        while not stop.is_set():
            while len(waiting) < per_tick:
                waiting += next(made)
            # ids taken now, as ingestion takes them on receipt (the tail follows ids)
            await store.append(logs_query_bench.with_ids(waiting[:per_tick]))
            del waiting[:per_tick]
            sent += per_tick
            ahead = began + tick * (sent // per_tick) - time.monotonic()
            if ahead > 0:
                await asyncio.sleep(ahead)

    async def consume() -> None:
        nonlocal shown, skipped
        async with (
            httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(30.0, read=60.0)) as browser,
            browser.stream(
                "GET",
                f"/logs/tail/events?source={source_id}",
                headers={"Cookie": f"{COOKIE}={cookie}", "Accept": "text/event-stream"},
            ) as stream,
        ):
            assert stream.status_code == 200, stream.status_code
            last = ""
            async for line in stream.aiter_lines():
                if line.startswith("retry:"):
                    started.set()
                elif line == "event: log":
                    shown += 1
                elif line.startswith("data: ") and last == "event: skipped":
                    skipped = int(line[6:])
                last = line

    consumer = asyncio.create_task(consume())
    producer = asyncio.create_task(produce())
    try:
        await asyncio.wait_for(started.wait(), 30)
        began, cpu = time.perf_counter(), time.process_time()
        await asyncio.sleep(args.tail_seconds)
        stop.set()
        await producer
        await asyncio.sleep(LAG_DRAIN_S)  # the tail's last poll
        elapsed = time.perf_counter() - began
        cpu_share = (time.process_time() - cpu) / elapsed
    finally:
        stop.set()
        consumer.cancel()
        with suppress(asyncio.CancelledError, httpx.HTTPError):
            await consumer
        server.should_exit = True
        await serving
        sock.close()
    missing = sent - shown - skipped
    return (
        f"live tail: {sent:,} events sent at {args.tail_rate:,}/s for {args.tail_seconds:.0f} s;"
        f" the browser got {shown:,} lines ({shown / elapsed:.0f}/s, the cap is"
        f" {TAIL_LINES_PER_S}/s) and was told {skipped:,} were skipped; {missing:,} neither"
        f" shown nor counted; this process used {cpu_share:.0%} of a core"
    )


LAG_DRAIN_S = 2.0


def logs_main(args: argparse.Namespace, backend: str) -> int:
    data = Path(tempfile.mkdtemp(prefix="console-logs-bench-"))
    try:
        with database(args.postgres) as url:
            results, tail = asyncio.run(logs_run(url, data, args))
    finally:
        shutil.rmtree(data, ignore_errors=True)
    print(
        f"\nConsole logs, {args.logs:,} events over 24 h, embedded store (DuckDB),"
        f" people on {backend}; {machine()}\n"
    )
    print(results_table(results))
    print()
    print(tail)
    return 0


# ------------------------------------------------------------------ status pages (--status-editor)

EDITOR_RESOURCES = 200
EDITOR_SECTIONS = 10
LISTED_PAGES = 25
LISTED_RESOURCES = 8
"""Resources of each of the other pages of the list (a full page of the console's list)."""


async def seed_status_pages(db: Database, team_id: int) -> int:
    """Through the API's own services: the editor's page, EDITOR_RESOURCES resources in
    EDITOR_SECTIONS sections, each showing one of the team's monitors (taken in turn), and
    LISTED_PAGES - 1 more pages of LISTED_RESOURCES monitors each; the editor page's id."""
    from watchpost.crypto import SecretBox
    from watchpost.status_pages import pages, resources, sections
    from watchpost.status_pages.schemas import PageCreate, ResourceFields, SectionCreate
    from watchpost.writing import Writing

    async with db.write_sessions() as session, session.begin():
        monitor_ids = list(
            await session.scalars(
                select(Monitor.id).where(Monitor.team_id == team_id).order_by(Monitor.id)
            )
        )
        taken = 0

        async def add_page(n: int, count: int, section_count: int) -> int:
            nonlocal taken
            page = await pages.create_page(
                Writing(session, team_id, "bench", SecretBox("bench-status-pages"), NOW),
                PageCreate(subdomain=f"bench-{n}", company_name=f"Bench status {n}"),
            )
            per_section = math.ceil(count / section_count)
            for s in range(section_count):
                section = await sections.create_section(
                    session, page=page, data=SectionCreate(name=f"Section {s + 1}"), now=NOW
                )
                for _ in range(min(per_section, count - s * per_section)):
                    data = ResourceFields(
                        status_page_section_id=section.id,
                        resource_type="Monitor",
                        resource_id=monitor_ids[taken % len(monitor_ids)],
                    )
                    taken += 1
                    await resources.create_resource(
                        session,
                        page=page,
                        team_name="bench",
                        data=data,
                        sent=set(data.model_fields_set),
                        now=NOW,
                    )
            return page.id

        editor_id = await add_page(0, EDITOR_RESOURCES, EDITOR_SECTIONS)
        for n in range(1, LISTED_PAGES):
            await add_page(n, LISTED_RESOURCES, 1)
    return editor_id


async def status_page_cases(client: Any, team_id: int, runs: int) -> list[Result]:
    """The status page editor (/status-pages/{id}) of a page with EDITOR_RESOURCES
    resources and the list (/status-pages: LISTED_PAGES rows, each with the state its
    public page shows now), over HTTP as http_cases measures, beside the bare ceiling taken
    again right before them."""
    db = console_pages.database_of(client)
    started = time.perf_counter()
    editor_id = await seed_status_pages(db, team_id)
    print(
        f"seeded {LISTED_PAGES} status pages ({EDITOR_RESOURCES} resources on one,"
        f" {LISTED_RESOURCES} on each other) in {time.perf_counter() - started:.1f} s"
    )
    cases = [
        ("HTTP: bare ceiling again (GET /healthz)", "/healthz", ""),
        (
            f"HTTP: status page editor, {EDITOR_RESOURCES} resources",
            f"/status-pages/{editor_id}",
            f"{EDITOR_SECTIONS} sections",
        ),
        (
            f"HTTP: status pages list, {LISTED_PAGES} rows with their state",
            "/status-pages",
            f"{EDITOR_RESOURCES + (LISTED_PAGES - 1) * LISTED_RESOURCES} resources in all",
        ),
    ]
    found = []
    for label, path, note in cases:
        sizes: list[int] = []
        result = await measure(label, console_pages.page(client, path, sizes), runs=runs)
        size = f"{max(sizes) / 1024:.0f} KB of HTML" if path != "/healthz" else ""
        found.append(replace(result, note="; ".join(x for x in (note, size) if x)))
    return found


if __name__ == "__main__":
    raise SystemExit(main())
