"""Several real `watchpost worker` processes on one PostgreSQL: each due check runs once, and a
killed worker's checks are completed by the others once its leases expire.

Real processes and real time: the test waits for the workers' progress by polling the
database (and its HTTP server) against a deadline, never for a fixed time. The leases are
short and the checks are held in flight for longer than a lease: the live workers keep
theirs only because they renew them, which is what guarantees each check runs once however
loaded the machine is.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import ColumnElement, func, select

from tests.conftest import TEST_SECRET_KEY, postgres_schema
from tests.factories.processes import cli_env, run_cli
from watchpost.context import AppContext
from watchpost.engine.schedule import next_slot
from watchpost.monitors.models import Monitor
from watchpost.settings import Settings
from watchpost.teams.models import Team

CHECKS = 500
INTERVAL_S = 86_400
"""One due time per monitor within the test."""
TIMEOUT_S = 60
"""request_timeout of the monitors: longer than the test holds any request, so no check
times out however slow the machine."""
LEASE_MARGIN_S = 8
"""A lease lasts 8 s from its claim or last renewal (renewed every 8/3 s): the killed
worker's checks are free again 8 s after it died, while held checks stay in flight longer.
The margin only has to cover a live worker's longest stall between two renewals."""
DEADLINE_S = 240.0
"""How long the test waits for the workers' progress (a loaded machine is slow; only a
failing run waits this long)."""


@pytest.fixture
def database_url() -> Iterator[str]:
    with postgres_schema("wp_workers") as url:
        yield url


class Server:
    """Answers 200 to every request (optionally only once `release` is set), counting paths."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.release = asyncio.Event()
        self.release.set()
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await reader.readline()).decode()
            while (await reader.readline()).strip():
                pass
            self.hits[line.split(" ")[1]] += 1
            await self.release.wait()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            await writer.drain()
        except (ConnectionError, IndexError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    recorder = Server()
    listener = await asyncio.start_server(recorder.handle, "127.0.0.1", 0, backlog=4096)
    recorder.port = listener.sockets[0].getsockname()[1]
    try:
        yield recorder
    finally:
        listener.close()


async def add_monitors(ctx: AppContext, server: Server, prefix: str) -> list[int]:
    now = datetime.now(UTC)
    async with ctx.db.write_sessions() as session, session.begin():
        team = Team(name=f"team-{prefix}", created_at=now)
        session.add(team)
        await session.flush()
        monitors = [
            Monitor(
                team_id=team.id,
                monitor_type="status",
                url=f"http://127.0.0.1:{server.port}/{prefix}/{i}",
                check_frequency=INTERVAL_S,
                confirmation_period=0,
                recovery_period=0,
                request_timeout=TIMEOUT_S,
                http_method="get",
                status="pending",
                created_at=now,
                updated_at=now,
            )
            for i in range(CHECKS)
        ]
        session.add_all(monitors)
        await session.flush()
        for monitor in monitors:  # due on their schedule, so the engine starts them all at once
            monitor.next_check_at = next_slot(
                "monitor", monitor.id, INTERVAL_S, after=now - timedelta(seconds=INTERVAL_S)
            )
        return [m.id for m in monitors]


def worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "watchpost.cli", "worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
    )


def completed() -> tuple[ColumnElement[bool], ...]:
    return (
        Monitor.last_checked_at.is_not(None),
        Monitor.status == "up",
        Monitor.lease_owner.is_(None),
    )


async def wait_for(
    ctx: AppContext, ids: list[int], *conditions: ColumnElement[bool], what: str
) -> None:
    """Poll the database until every monitor of ids meets the conditions (real time)."""
    deadline = time.monotonic() + DEADLINE_S
    found = -1
    stmt = select(func.count()).select_from(Monitor).where(Monitor.id.in_(ids), *conditions)
    while time.monotonic() < deadline:
        async with ctx.db.read_sessions() as session:
            found = int((await session.execute(stmt)).scalar_one())
        if found == len(ids):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what}: {found} of {len(ids)} after {DEADLINE_S} s")


async def wait_until(done: Callable[[], bool], what: str) -> None:
    """Poll `done` (the test server's counts) until it holds (real time)."""
    deadline = time.monotonic() + DEADLINE_S
    while not done():
        assert time.monotonic() < deadline, f"{what}: not after {DEADLINE_S} s"
        await asyncio.sleep(0.05)


Leases = dict[int, tuple[str | None, datetime | None]]


async def leases(ctx: AppContext, ids: Iterable[int]) -> Leases:
    async with ctx.db.read_sessions() as session:
        rows = await session.execute(
            select(Monitor.id, Monitor.lease_owner, Monitor.lease_expires_at).where(
                Monitor.id.in_(list(ids))
            )
        )
        return {row.id: (row.lease_owner, row.lease_expires_at) for row in rows}


def _later(value: datetime | None, than: datetime | None) -> bool:
    return value is not None and than is not None and value > than


async def wait_renewed(ctx: AppContext, before: Leases) -> None:
    """Poll until every lease of `before` was extended by its owner; fail at once if one
    changed hands."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        now = await leases(ctx, before)
        lost = [i for i, (owner, _) in now.items() if owner != before[i][0]]
        assert not lost, f"{len(lost)} checks of live workers changed hands"
        if all(_later(now[i][1], before[i][1]) for i in before):
            return
        assert time.monotonic() < deadline, f"leases not renewed after {DEADLINE_S} s"
        await asyncio.sleep(0.1)


async def test_workers_share_the_checks_and_take_over_a_killed_one(
    database_url: str, server: Server, tmp_path: Path
) -> None:
    env = cli_env(
        database_url,
        WATCHPOST_SECRET_KEY=TEST_SECRET_KEY,
        WATCHPOST_DATA_DIR=str(tmp_path / "data"),
        WATCHPOST_ENGINE_LEASE_MARGIN=str(LEASE_MARGIN_S),
        WATCHPOST_ENGINE_POLL_INTERVAL="0.2",
        WATCHPOST_ENGINE_CLAIM_BATCH="50",
        WATCHPOST_LOG_LEVEL="warning",
    )
    assert run_cli(env, "migrate").returncode == 0
    ctx = AppContext.build(Settings(database_url=database_url, secret_key=TEST_SECRET_KEY))
    workers = [worker(env, tmp_path / f"worker-{n}.log") for n in range(3)]
    try:
        # 1. 500 due checks, three workers: every one runs exactly once.
        first = await add_monitors(ctx, server, "a")
        await wait_for(ctx, first, *completed(), what="checks completed")
        assert server.hits == Counter({f"/a/{i}": 1 for i in range(CHECKS)})

        # 2. 500 more, held by the server while in flight; one worker is killed mid-batch.
        server.release.clear()
        second = await add_monitors(ctx, server, "b")
        await wait_for(ctx, second, Monitor.lease_owner.is_not(None), what="checks leased")
        await wait_until(
            lambda: sum(n for p, n in server.hits.items() if p.startswith("/b/")) == CHECKS,
            "all requests arrived",
        )
        victim = workers[0]
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        async with ctx.db.read_sessions() as session:
            held = (
                await session.execute(
                    select(Monitor.id, Monitor.url, Monitor.lease_expires_at).where(
                        Monitor.id.in_(second), Monitor.lease_owner.like(f"%:{victim.pid}:%")
                    )
                )
            ).all()
        assert held, "the killed worker held no checks"
        orphaned = {url.split(str(server.port))[1] for _, url, _ in held}
        alive = {
            monitor_id: lease
            for monitor_id, lease in (await leases(ctx, second)).items()
            if monitor_id not in {monitor_id for monitor_id, _, _ in held}
        }

        # Still holding every request: the killed worker's checks are taken over once its
        # leases expire, while the live workers renew theirs and keep every one of them.
        await wait_until(
            lambda: all(server.hits[path] == 2 for path in orphaned), "killed worker's checks"
        )
        await wait_renewed(ctx, alive)
        server.release.set()

        await wait_for(ctx, second, *completed(), what="checks completed after the kill")
        for i in range(CHECKS):
            path = f"/b/{i}"
            # the killed worker's request was lost; the takeover is the only other one
            assert server.hits[path] == (2 if path in orphaned else 1), path
        async with ctx.db.read_sessions() as session:
            for monitor_id, _, expired_at in held:
                row = await session.get(Monitor, monitor_id)
                assert row is not None and row.last_checked_at is not None
                assert row.last_checked_at >= expired_at  # taken over only after expiry
    except BaseException:
        print_logs(tmp_path)  # shown with the failure: tmp_path may be gone by then
        raise
    finally:
        for process in workers:
            if process.poll() is None:
                process.terminate()
        codes = [process.wait(timeout=30) for process in workers]
        await ctx.db.dispose()
    logs = [tmp_path / f"worker-{n}.log" for n in range(3)]
    assert codes[1:] == [0, 0], [log.read_bytes() for log in logs]


def print_logs(folder: Path) -> None:
    for n in range(3):
        log = folder / f"worker-{n}.log"
        print(f"--- worker {n}:", log.read_text(errors="replace")[-8000:] if log.exists() else "")


def test_worker_help_and_one_line_errors(tmp_path: Path) -> None:
    env = cli_env(f"sqlite:///{tmp_path / 'w.db'}")
    helped = run_cli(env, "worker", "--help")
    assert helped.returncode == 0 and "check engine" in helped.stdout
    broken = run_cli({**env, "WATCHPOST_DATABASE_URL": "mysql://nowhere/db"}, "worker")
    assert broken.returncode == 1
    lines = [line for line in broken.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("watchpost: error: "), broken.stderr
