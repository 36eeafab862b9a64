"""Watchpost for the peer benchmark: `watchpost serve` (one process, check engine in it) from
this checkout, on a throw-away SQLite data folder or a throw-away PostgreSQL database."""

from __future__ import annotations

import secrets
import shutil
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from api_bench import HOST, TEAM, child_env, http_json, run_cli, server
from engine_bench import postgres_database, seed_monitors


@dataclass(frozen=True)
class Served:
    pid: int
    port: int
    base: str
    token: str
    data: Path
    env: dict[str, str]


def describe() -> str:
    return "Watchpost `watchpost serve` (one uvicorn process, check engine in it)"


@contextmanager
def prepared(data: Path, postgres: str) -> Iterator[tuple[dict[str, str], str]]:
    """A migrated store with the bench team's token: SQLite in data, or (postgres: a server
    URL) a database of its own on that server, dropped afterwards. Yields (env, token)."""
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    with ExitStack() as stack:
        env = child_env(data, secrets.token_urlsafe(32), "warning")
        if postgres:
            env["WATCHPOST_DATABASE_URL"] = stack.enter_context(postgres_database(postgres))
        run_cli(["migrate"], env)
        token = run_cli(["token", "create", "--team", TEAM], env)
        yield env, token


@contextmanager
def serve(env: dict[str, str], token: str, port: int) -> Iterator[Served]:
    data = Path(env["WATCHPOST_DATA_DIR"])
    base = f"http://{HOST}:{port}"
    cmd = [sys.executable, "-m", "watchpost.cli", "serve", "--host", HOST, "--port", str(port)]
    with server(cmd, env, data / "serve.log", f"{base}/healthz") as pid:
        yield Served(pid, port, base, token, data, env)


def heartbeat_ping_paths(served: Served, count: int) -> list[str]:
    """Create count heartbeats through the API; their ping paths."""
    paths = []
    for i in range(count):
        made = http_json(
            "POST",
            served.port,
            "/api/v2/heartbeats",
            served.token,
            {"name": f"bench {i}", "period": 3600},
        )
        data = made["data"]
        assert isinstance(data, dict)
        url = str(data["attributes"]["url"])
        paths.append("/api/v1/heartbeat/" + url.rsplit("/", 1)[1])
    return paths


def with_monitors(env: dict[str, str], count: int, interval: int, target_port: int) -> None:
    """count `status` monitors of the bench's target (engine_bench.seed_monitors: one through
    the API's service, the others copies of its row)."""
    seed_monitors(env, count, interval, target_port)


def checked_monitors(data: Path) -> int:
    """Monitors with at least one stored result (SQLite)."""
    sql = "SELECT COUNT(DISTINCT subject_id) FROM check_results WHERE subject_type = 'monitor'"
    return _count(data, sql)


def stored_results(data: Path) -> int:
    return _count(data, "SELECT COUNT(*) FROM check_results")


def _count(data: Path, sql: str) -> int:
    try:
        path = f"file:{data / 'watchpost.db'}?mode=ro"
        with closing(sqlite3.connect(path, uri=True, timeout=5)) as db:
            row = db.execute(sql).fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0])
