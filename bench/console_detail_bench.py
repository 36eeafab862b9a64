"""What reading a console detail page's data costs: console/detail_data.monitor_detail for a
monitor with 365 days of history, beside `--others` monitors with 30 days each.

Builds a throw-away SQLite database (migrations and the token through the CLI), creates the
monitors through the API, then writes their history as the recorder leaves it: hourly and
daily rollups (with response times; a failing hour every 50), an incident of an hour every
5 days, the last day's raw results (one every 30 s) and each last observation. Then calls
monitor_detail `--requests` times, each in a fresh read session: the statements one call
runs, wall time p50/p99 and process CPU per call. The page's HTML is not rendered here.

    .venv/bin/python bench/console_detail_bench.py [--requests 300] [--others 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import uvloop
from sqlalchemy import event, insert, select

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_bench import workspace
from api_inprocess import bench_app, expect_status
from watchpost.console.detail_data import monitor_detail
from watchpost.history.models import CheckResult, CheckRollup, LastObservation
from watchpost.incidents.models import Incident
from watchpost.monitors.models import Monitor

App = Any
HOUR = timedelta(hours=1)


def _rollup(team_id: int, monitor_id: int, granularity: str, start: datetime, hour: int) -> Any:
    size = 3600.0 if granularity == "hour" else 86400.0
    failing = granularity == "hour" and hour % 50 == 7
    checks = 120 if granularity == "hour" else 2880
    return {
        "team_id": team_id,
        "subject_type": "monitor",
        "subject_id": monitor_id,
        "granularity": granularity,
        "period_start": start,
        "up_s": 0.0 if failing else size,
        "down_s": size if failing else 0.0,
        "maintenance_s": 0.0,
        "checks": checks,
        "failures": checks if failing else 0,
        "latency_sum": 0.0 if failing else 150.0 * checks,
        "latency_count": 0 if failing else checks,
    }


async def _seed(app: App, monitor_id: int, days: int, now: datetime) -> None:
    """`days` of history of one monitor, up to the start of now's hour."""
    end = now.replace(minute=0, second=0, microsecond=0)
    start = end - timedelta(days=days)
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        team_id = await db.scalar(select(Monitor.team_id).where(Monitor.id == monitor_id))
        monitor = await db.get(Monitor, monitor_id)
        assert monitor is not None and team_id is not None
        monitor.created_at = start
        hours = [start + HOUR * k for k in range(days * 24)]
        rows = [_rollup(team_id, monitor_id, "hour", at, k) for k, at in enumerate(hours)]
        rows += [_rollup(team_id, monitor_id, "day", at, 0) for at in hours[::24]]
        await db.execute(insert(CheckRollup), rows)
        await db.execute(
            insert(Incident),
            [
                {
                    "team_id": team_id,
                    "name": "Down",
                    "cause": "Status 500",
                    "monitor_id": monitor_id,
                    "started_at": at,
                    "resolved_at": at + HOUR,
                    "metadata_": {},
                    "created_at": at,
                    "updated_at": at,
                }
                for at in hours[7 :: 5 * 24]
            ],
        )
        raw = [end - timedelta(seconds=30 * k) for k in range(1, 2881)]
        await db.execute(
            insert(CheckResult),
            [
                {
                    "team_id": team_id,
                    "subject_type": "monitor",
                    "subject_id": monitor_id,
                    "at": at,
                    "state": "up",
                    "latency_ms": 150.0,
                }
                for at in raw
            ],
        )
        last = {"team_id": team_id, "subject_type": "monitor", "subject_id": monitor_id}
        await db.execute(
            insert(LastObservation), [last | {"at": end, "state": "up", "valid_for_s": 60.0}]
        )


async def _monitor(app: App, token: str, n: int) -> int:
    body = f'{{"url": "https://service-{n}.example", "paused": true}}'.encode()
    made = await expect_status(app, token, 201, "POST", "/api/v2/monitors", body)
    return int(made.split(b'"id":"', 1)[1].split(b'"', 1)[0])


async def run(data_dir: Path, secret_key: str, token: str, args: argparse.Namespace) -> None:
    app = bench_app(data_dir, secret_key)
    now = datetime.now(UTC)
    for n in range(args.others):
        await _seed(app, await _monitor(app, token, n), 30, now)
    monitor_id = await _monitor(app, token, args.others)
    await _seed(app, monitor_id, 365, now)
    async with app.state.ctx.db.read_sessions() as db:
        team_id = await db.scalar(select(Monitor.team_id).where(Monitor.id == monitor_id))
    assert team_id is not None

    statements: list[str] = []
    engine = app.state.ctx.db.engine.sync_engine

    def seen(*args: Any) -> None:
        statements.append(args[2])

    event.listen(engine, "before_cursor_execute", seen)
    async with app.state.ctx.db.read_sessions() as db:
        detail = await monitor_detail(db, team_id=team_id, monitor_id=monitor_id, now=now)
    event.remove(engine, "before_cursor_execute", seen)
    walls: list[float] = []
    cpu = time.process_time()
    for _ in range(args.requests):
        async with app.state.ctx.db.read_sessions() as db:
            started = time.perf_counter()
            await monitor_detail(db, team_id=team_id, monitor_id=monitor_id, now=now)
            walls.append((time.perf_counter() - started) * 1000)
    cpu_ms = (time.process_time() - cpu) / args.requests * 1000
    walls.sort()
    p99 = walls[min(len(walls) - 1, int(len(walls) * 0.99))]
    print(f"monitor_detail, 365 days of history, {args.others} other monitors (30 days each):")
    print(f"  statements per call: {len(statements)}")
    print(f"  wall p50 {statistics.median(walls):.2f} ms, p99 {p99:.2f} ms; CPU {cpu_ms:.2f} ms")
    points = {name: len(series) for name, series in detail.series.items()}
    print(f"  points {points}, availability {detail.availability}")
    await app.state.ctx.db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--others", type=int, default=200)
    args = parser.parse_args()
    with workspace("watchpost-console-detail-") as (data_dir, secret_key, token):
        uvloop.run(run(data_dir, secret_key, token, args))


if __name__ == "__main__":
    main()
