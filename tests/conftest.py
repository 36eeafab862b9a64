"""Fixtures: every test that uses the database runs on SQLite and again on PostgreSQL.

PostgreSQL comes from WATCHPOST_TEST_POSTGRES_URL (default: the local server's `test`
database). Each run works in a schema of its own, dropped at the end, so concurrent runs
never meet. When the server is unreachable the PostgreSQL half is skipped, unless
WATCHPOST_REQUIRE_POSTGRES=1 (set by CI), which turns the skip into a failure.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from psycopg import sql
from psycopg.rows import TupleRow

from tests.factories.api import SECRET_MARKERS, Api
from watchpost.app import create_app
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.db.counts import RowCount
from watchpost.db.migrate import upgrade
from watchpost.db.registry import all_metadata
from watchpost.settings import Settings
from watchpost.teams.service import create_token

DEFAULT_POSTGRES_URL = "postgresql://root@127.0.0.1:5432/test"
TEST_SECRET_KEY = "watchpost-test-encryption-key"


def postgres_url() -> str:
    return os.environ.get("WATCHPOST_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


def _require(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0", "false")


def postgres_unreachable_reason() -> str | None:
    try:
        with psycopg.connect(postgres_url(), connect_timeout=3):
            return None
    except psycopg.Error as exc:
        return (
            f"PostgreSQL at {postgres_url()} is not reachable ({str(exc).strip().splitlines()[0]})"
        )


def require_postgres() -> None:
    """Skip the calling test when PostgreSQL is unreachable, or fail under
    WATCHPOST_REQUIRE_POSTGRES (CI), where the PostgreSQL tests must run."""
    reason = postgres_unreachable_reason()
    if reason is None:
        return
    if _require("WATCHPOST_REQUIRE_POSTGRES"):
        pytest.fail(f"WATCHPOST_REQUIRE_POSTGRES is set but {reason}")
    pytest.skip(reason)


# ------------------------------------------------------------------------- test order

# The files whose tests take longest (a real server, real subprocesses, thousands of
# requests), most expensive first: they start first, one per xdist worker as workers come
# free, so that the end of the run is made of short tests that even out across workers,
# rather than one worker left alone with a minute-long test while the others idle.
SLOW_FIRST = (
    "test_schemathesis.py",
    "test_engine_workers.py",
    "test_restart.py",
    "test_crash_durability.py",
    "test_hardening_server.py",
    "test_cli.py",
    "test_bench_script.py",
    "test_log_redaction.py",
    "test_concurrent_migrations.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: place for place, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))


# ------------------------------------------------------------------ secrets never leak


class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


_recorded_bodies: list[str] = []


@pytest.fixture(scope="session", autouse=True)
def no_secret_leaks() -> Iterator[None]:
    """Fails the run if any response or log line of the whole suite held a test secret."""
    recorder = _Recorder()
    recorder.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(recorder)
    watchpost_logger = logging.getLogger("watchpost")
    previous = watchpost_logger.level
    watchpost_logger.setLevel(logging.DEBUG)
    yield
    watchpost_logger.setLevel(previous)
    root.removeHandler(recorder)
    leaks = [
        text
        for text in (*recorder.lines, *_recorded_bodies)
        if any(marker in text for marker in SECRET_MARKERS)
    ]
    assert not leaks, f"a test secret appeared in {len(leaks)} responses or log lines: {leaks[:3]}"


async def _record_body(response: httpx.Response) -> None:
    await response.aread()
    _recorded_bodies.append(response.text)


# -------------------------------------------------------------------------- backends


@dataclass
class Backend:
    name: str
    url: str
    template: Path | None = None  # SQLite: a migrated file copied for each test
    reset: Callable[[], None] | None = None  # PostgreSQL: empties the schema for each test


@pytest.fixture(scope="session")
def sqlite_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where the tests' SQLite files live: in memory (/dev/shm) where the machine has it.
    On disk, opening, committing to and closing a fresh WAL database cost ≈ 40 ms of
    waiting on fsync per test on a busy machine; a process killed with -9 loses nothing
    either way. Removed at the end of the run."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        with tempfile.TemporaryDirectory(prefix="watchpost-tests-", dir=shm) as folder:
            yield Path(folder)
    else:
        yield tmp_path_factory.mktemp("sqlite")


@pytest.fixture(scope="session")
def sqlite_backend(sqlite_folder: Path) -> Backend:
    template = sqlite_folder / "template.db"
    upgrade(f"sqlite:///{template}")
    return Backend("sqlite", f"sqlite:///{template}", template=template)


@contextmanager
def postgres_schema(prefix: str) -> Iterator[str]:
    """A new, empty schema of the test server (dropped afterwards), as a URL whose connections
    use it: the test's database of its own. Skips or fails like require_postgres()."""
    require_postgres()
    schema = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(postgres_url(), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in postgres_url() else "?"
    try:
        yield postgres_url() + separator + "options=" + quote(f"-csearch_path={schema}")
    finally:
        with psycopg.connect(postgres_url(), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(scope="session")
def postgres_backend() -> Iterator[Backend]:
    with postgres_schema("wp_test") as url:
        async_url = Settings(database_url=url).async_database_url
        upgrade(async_url)
        reset = PostgresReset(async_url)
        try:
            yield Backend("postgres", async_url, reset=reset)
        finally:
            reset.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Backend:
    """The database of the test, parametrized: each test runs on both backends."""
    chosen: Backend = request.getfixturevalue(f"{request.param}_backend")
    return chosen


class PostgresReset:
    """Empties the test schema between tests in one round trip: DELETE from every table,
    dependents first, then every sequence back to 1 (ids start at 1, as on SQLite's fresh
    copy). TRUNCATE … RESTART IDENTITY cost 93-148 ms a test (it rewrites every table's
    files); this costs a few ms. row_counts goes first, so the counting triggers that the
    DELETEs fire find nothing to update, and it ends empty, consistent with the empty tables.
    One connection per worker, reopened if a test broke it."""

    def __init__(self, url: str) -> None:
        self.url = url.replace("postgresql+psycopg://", "postgresql://")
        self._conn: psycopg.Connection[TupleRow] | None = None
        self._statement = sql.Composed([])

    def __call__(self) -> None:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = psycopg.connect(self.url, autocommit=True)
            # A transaction some test left open fails the next test instead of hanging it.
            self._conn.execute("SET lock_timeout = '30s'")
            self._statement = self._build(self._conn)
        self._conn.execute(self._statement)

    @staticmethod
    def _build(conn: psycopg.Connection[TupleRow]) -> sql.Composed:
        tables = [table.name for table in reversed(all_metadata().sorted_tables)]
        tables.sort(key=lambda name: name != RowCount.__tablename__)  # stable: row_counts first
        sequences = conn.execute(
            "SELECT sequence_name FROM information_schema.sequences"
            " WHERE sequence_schema = current_schema() ORDER BY 1"
        ).fetchall()
        statements = [sql.SQL("DELETE FROM {}").format(sql.Identifier(name)) for name in tables]
        if sequences:
            restarts = sql.SQL("SELECT {}").format(
                sql.SQL(", ").join(
                    sql.SQL("setval({}, 1, false)").format(
                        sql.Literal(sql.Identifier(name).as_string(conn))
                    )
                    for (name,) in sequences
                )
            )
            statements.append(restarts)
        return sql.SQL("; ").join([sql.SQL("BEGIN"), *statements, sql.SQL("COMMIT")])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


@pytest.fixture
def settings(backend: Backend, tmp_path: Path) -> Iterator[Settings]:
    """Settings for a fresh, migrated, empty database of the test's backend."""
    database: Path | None = None
    if backend.template is not None:
        database = backend.template.with_name(f"{secrets.token_hex(8)}.db")
        shutil.copyfile(backend.template, database)
        url = f"sqlite:///{database}"
    else:
        assert backend.reset is not None
        backend.reset()
        url = backend.url
    yield Settings(database_url=url, secret_key=TEST_SECRET_KEY, data_dir=tmp_path / "data")
    if database is not None:  # in memory: give it back
        for suffix in ("", "-wal", "-shm"):
            database.with_name(database.name + suffix).unlink(missing_ok=True)


# ------------------------------------------------------------------------ app, client


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture(scope="session")
def shared_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The routes, built once: building them costs more than most tests."""
    folder = tmp_path_factory.mktemp("app")
    return create_app(
        Settings(
            database_url=f"sqlite:///{folder / 'unused.db'}",
            secret_key=TEST_SECRET_KEY,
            data_dir=folder,
        )
    )


@pytest.fixture
async def app(
    shared_app: FastAPI, settings: Settings, clock: FrozenClock
) -> AsyncIterator[FastAPI]:
    """The app with a context of the test's own: fresh database, settings and clock."""
    shared_app.state.ctx = AppContext.build(settings, clock)
    yield shared_app
    await shared_app.state.ctx.db.dispose()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://testserver",
        event_hooks={"response": [_record_body]},
    ) as http:
        yield http


async def make_api(app: FastAPI, client: httpx.AsyncClient, team: str) -> Api:
    """A client with a fresh token of team (created if needed)."""
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        token = await create_token(session, team_name=team, now=ctx.clock.now())
    from watchpost.teams.service import authenticate

    async with ctx.db.read_sessions() as session:
        principal = await authenticate(session, token)
    assert principal is not None
    return Api(client=client, token=token, team_id=principal.team_id, team_name=team)


@pytest.fixture
async def api(app: FastAPI, client: httpx.AsyncClient) -> Api:
    """A client of team `acme`."""
    return await make_api(app, client, "acme")


@pytest.fixture
async def other_api(app: FastAPI, client: httpx.AsyncClient) -> Api:
    """A client of another team, `globex`, to prove isolation."""
    return await make_api(app, client, "globex")
