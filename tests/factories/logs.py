"""Logs stores for the tests, and log events to put in them.

- `embedded_logs`: the embedded store (DuckDB) in the test's own folder, closed after it.
- `clickhouse_logs`: the ClickHouse store on a database of the test's own (dropped after it),
  on the server of `clickhouse_server`: WATCHPOST_TEST_CLICKHOUSE_URL when set (a real server,
  clickhouse://user:password@host:port), else ClickHouse's HTTP interface in front of chDB's
  engine (tests/factories/clickhouse_http.py, one process per test worker, an ephemeral port).
  Neither available: the test skips with the reason (fails under WATCHPOST_REQUIRE_SERVICES).
- `logs_store`: both, one after the other: what the contract suite runs on.
- The app's context has a store too (`ctx.logs`, the embedded one in the test's data folder,
  opened on first use and closed by the `app` fixture): tests of the HTTP routes use that one.

Use them from a test folder's conftest.py:  from tests.factories.logs import *  # noqa: F403
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from datetime import datetime
from pathlib import Path

import orjson
import pytest

from tests.factories.processes import SRC
from tests.factories.servers import unavailable
from watchpost.logs.clickhouse import ClickHouseStore
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.events import LogEvent, new_event_ids
from watchpost.logs.store import LogStore

__all__ = [
    "clickhouse_logs",
    "clickhouse_server",
    "embedded_logs",
    "log_event",
    "logs_store",
]

CLICKHOUSE_URL_ENV = "WATCHPOST_TEST_CLICKHOUSE_URL"
REPO = Path(SRC).parent


def log_event(
    dt: datetime,
    message: str = "",
    *,
    source_id: int = 1,
    team_id: int = 1,
    level: str = "info",
    service: str = "",
    event_id: int | None = None,
    **attributes: str,
) -> LogEvent:
    """An event as ingestion makes it: attributes flattened (keyword names with __ for dots:
    context__user__id="7" is "context.user.id"), level and message among them."""
    flat = {key.replace("__", "."): value for key, value in attributes.items()}
    flat.update({"level": level, "message": message})
    if service:
        flat["service"] = service
    raw = orjson.dumps({"dt": dt.isoformat(), **_nest(flat)})
    return LogEvent(
        id=event_id if event_id is not None else new_event_ids(1)[0],
        source_id=source_id,
        team_id=team_id,
        dt=dt,
        level=level,
        service=service,
        message=message,
        attributes=flat,
        raw=raw,
    )


def _nest(flat: Mapping[str, str]) -> dict[str, object]:
    nested: dict[str, object] = {}
    for path, value in flat.items():
        node = nested
        *parents, leaf = path.split(".")
        for part in parents:
            child = node.setdefault(part, {})
            node = child if isinstance(child, dict) else {}
        node[leaf] = value
    return nested


@pytest.fixture(scope="session")
def clickhouse_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """clickhouse://[user:password@]host:port of a server the tests may create databases on."""
    if url := os.environ.get(CLICKHOUSE_URL_ENV):
        yield url.rstrip("/")
        return
    try:
        import chdb  # noqa: F401
    except ImportError:
        unavailable(f"no ClickHouse server: {CLICKHOUSE_URL_ENV} is unset and chdb is missing")
    folder = tmp_path_factory.mktemp("clickhouse")
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{REPO}"}
    front = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "tests.factories.clickhouse_http", str(folder)],
        stdout=subprocess.PIPE,
        stderr=(folder / "front.log").open("wb"),
        env=env,
        cwd=REPO,
    )
    assert front.stdout is not None
    line = front.stdout.readline().decode()  # "port N", or "" if it died
    if not line.startswith("port "):
        front.kill()
        front.wait()
        log = (folder / "front.log").read_text(errors="replace")[-2000:]
        unavailable(f"the ClickHouse HTTP front did not start: {log}")
    try:
        yield f"clickhouse://127.0.0.1:{int(line.split()[1])}"
    finally:
        front.kill()
        front.wait()


@pytest.fixture
async def embedded_logs(tmp_path: Path) -> AsyncIterator[EmbeddedStore]:
    store = EmbeddedStore(tmp_path / "logs")
    yield store
    await store.close()


@pytest.fixture
async def clickhouse_logs(clickhouse_server: str) -> AsyncIterator[ClickHouseStore]:
    database = f"watchpost_test_{uuid.uuid4().hex[:12]}"
    store = ClickHouseStore.from_url(f"{clickhouse_server}/{database}")
    yield store
    await store.close()
    cleanup = ClickHouseStore.from_url(f"{clickhouse_server}/{database}")
    await cleanup._writer.call(lambda client: client.command(f"DROP DATABASE {database}"))
    await cleanup.close()


@pytest.fixture(params=["embedded", "clickhouse"])
def logs_store(request: pytest.FixtureRequest) -> LogStore:
    store: LogStore = request.getfixturevalue(f"{request.param}_logs")
    return store
