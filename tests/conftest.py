"""Fixtures: every test that uses the database runs on SQLite and again on PostgreSQL.

PostgreSQL comes from WATCHPOST_TEST_POSTGRES_URL (default: the local server's `test`
database). Each run works in a schema of its own, dropped at the end, so concurrent runs
never meet. When the server is unreachable the PostgreSQL half is skipped, unless
WATCHPOST_REQUIRE_POSTGRES=1 (set by CI), which turns the skip into a failure.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from sqlalchemy import Table, insert, select

from tests.factories.api import SECRET_MARKERS, Api
from tests.factories.databases import PostgresReset, SharedEngines, cancel_leftovers
from tests.factories.playwright import runtime_or_skip
from watchpost.app import create_app
from watchpost.clock import FrozenClock
from watchpost.crypto import hash_token, random_token
from watchpost.db.migrate import upgrade
from watchpost.delivery import sending as delivery_sending
from watchpost.probes import http as probe_http
from watchpost.probes.monitors import browser
from watchpost.settings import Settings
from watchpost.teams.models import ApiToken, Team
from watchpost.teams.service import SHOWN_PREFIX_LENGTH, TOKEN_PREFIX, authenticate

DEFAULT_POSTGRES_URL = "postgresql://root@127.0.0.1:5432/test"
TEST_SECRET_KEY = "watchpost-test-encryption-key"


_TEAMS: Table = Team.__table__  # type: ignore[assignment]
_TOKENS: Table = ApiToken.__table__  # type: ignore[assignment]


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
    if response.request.url.path == "/api/probe/v1/claims":
        return  # by design: a check's credentials go to the location that checks it
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


@pytest.fixture(scope="session")
async def engines(request: pytest.FixtureRequest) -> AsyncIterator[SharedEngines]:
    """The worker's engines, one per backend, shared by every test's app."""
    postgres = None
    if postgres_unreachable_reason() is None:
        postgres = request.getfixturevalue("postgres_backend").url
    shared = SharedEngines(postgres)
    yield shared
    await shared.close()


@pytest.fixture(autouse=True)
async def no_task_outlives_its_test() -> AsyncIterator[None]:
    """Tests and fixtures run on one event loop per worker (pyproject.toml): what a test
    leaves running is cancelled at its end, as closing a loop of its own used to."""
    before = asyncio.all_tasks()
    yield
    await cancel_leftovers(before)
    # The pooled HTTP sessions of the probes and of webhook delivery belong to the loop,
    # which outlives the test: close them with it, as a per-test loop used to.
    await probe_http.CLIENT.aclose()
    await delivery_sending.CLIENT.aclose()


@pytest.fixture
def playwright_runtime() -> browser.Runtime:
    """Playwright Test and Chromium, for browser tests (tests/factories/playwright.py)."""
    return runtime_or_skip()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Backend:
    """The database of the test, parametrized: each test runs on both backends."""
    chosen: Backend = request.getfixturevalue(f"{request.param}_backend")
    return chosen


@pytest.fixture(scope="session")
def base_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The environment read once a worker: each test's settings are a copy with its own
    database and data folder (reading the environment again costs ≈ 1.5 ms a test)."""
    folder = tmp_path_factory.mktemp("base")
    return Settings(
        database_url=f"sqlite:///{folder / 'unused.db'}",
        secret_key=TEST_SECRET_KEY,
        data_dir=folder,
    )


@pytest.fixture
def settings(backend: Backend, base_settings: Settings, tmp_path: Path) -> Iterator[Settings]:
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
    yield base_settings.model_copy(update={"database_url": url, "data_dir": tmp_path / "data"})
    if database is not None:  # in memory: give it back
        for suffix in ("", "-wal", "-shm"):
            database.with_name(database.name + suffix).unlink(missing_ok=True)


# ------------------------------------------------------------------------ app, client


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


def new_app(folder: Path) -> FastAPI:
    """An app whose own context goes unused: tests give it theirs (`app.state.ctx`)."""
    return create_app(
        Settings(
            database_url=f"sqlite:///{folder / 'unused.db'}",
            secret_key=TEST_SECRET_KEY,
            data_dir=folder,
        )
    )


@pytest.fixture(scope="session")
def shared_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The routes, built once: building them costs more than most tests."""
    return new_app(tmp_path_factory.mktemp("app"))


@pytest.fixture
async def app(
    shared_app: FastAPI, settings: Settings, clock: FrozenClock, engines: SharedEngines
) -> AsyncIterator[FastAPI]:
    """The app with a context of the test's own: fresh database, settings and clock, on the
    worker's engine for the backend (tests/factories/databases.py)."""
    async with own_context(shared_app, engines, settings, clock):
        yield shared_app


@asynccontextmanager
async def own_context(
    app: FastAPI, engines: SharedEngines, settings: Settings, clock: FrozenClock
) -> AsyncIterator[None]:
    """app given the test's context (`app` fixture) for the block."""
    ctx = engines.context(settings, clock)
    app.state.ctx = ctx
    try:
        yield
    finally:
        await engines.release(ctx)


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
    """A client with a fresh token of team (created if needed): what create_token stores,
    in two Core INSERTs (the ORM's unit of work cost more than many whole tests), checked
    by authenticate() in the same transaction."""
    ctx = app.state.ctx
    now = ctx.clock.now()
    token = random_token(TOKEN_PREFIX)
    async with ctx.db.write_sessions() as session, session.begin():
        team_id = await session.scalar(select(_TEAMS.c.id).where(_TEAMS.c.name == team))
        if team_id is None:
            new_team = insert(_TEAMS).values(name=team, created_at=now).returning(_TEAMS.c.id)
            team_id = (await session.execute(new_team)).scalar_one()
        await session.execute(
            insert(_TOKENS).values(
                team_id=team_id,
                prefix=token[:SHOWN_PREFIX_LENGTH],
                token_hash=hash_token(token),
                created_at=now,
            )
        )
        principal = await authenticate(session, token)
    assert principal is not None and principal.team_id == team_id
    return Api(client=client, token=token, team_id=principal.team_id, team_name=team)


@pytest.fixture
async def api(app: FastAPI, client: httpx.AsyncClient) -> Api:
    """A client of team `acme`."""
    return await make_api(app, client, "acme")


@pytest.fixture
async def other_api(app: FastAPI, client: httpx.AsyncClient) -> Api:
    """A client of another team, `globex`, to prove isolation."""
    return await make_api(app, client, "globex")
