"""Applying the Alembic migrations (used by `watchpost serve`, `watchpost migrate`, tests).

A database already at the newest schema is recognised without Alembic: its `alembic_version`
rows are compared with the revisions the migration files name (`head_revisions`), and Alembic
is loaded only when there is something to apply. Once imported, Alembic and what it brings
(Mako, Pygments, SQLAlchemy's PostgreSQL dialect, the migration scripts: ≈ 10 MB) would stay
resident in a server that never uses them again.
"""

from __future__ import annotations

import ast
import fcntl
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import create_engine, inspect, pool, text
from sqlalchemy.engine import make_url

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
VERSION_TABLE = "alembic_version"
_ASSIGNED = re.compile(r"^(revision|down_revision)\s*(?::[^=\n]*)?=\s*(.+?)\s*$", re.MULTILINE)


def sync_url(async_url: str) -> str:
    """Migrations run synchronously: the same database through its sync driver."""
    scheme, _, rest = async_url.partition("://")
    if scheme.startswith("sqlite"):
        return f"sqlite://{rest}"
    return async_url  # postgresql+psycopg is both sync and async


def alembic_config(async_url: str) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", sync_url(async_url).replace("%", "%%"))
    return config


def upgrade(async_url: str) -> None:
    """Bring the database to the newest schema.

    Safe to run from several processes at once: on PostgreSQL they take turns on an advisory
    lock (migrations/env.py); on SQLite on an exclusive lock of a file beside the database.
    A process that finds the schema current (read in one committed state: PostgreSQL commits
    every migration with its version row) leaves Alembic unloaded.
    """
    with _sqlite_migration_lock(async_url):
        heads = head_revisions()
        if heads is not None and stored_revisions(async_url) == heads:
            return
        from alembic import command

        command.upgrade(alembic_config(async_url), "heads")


def head_revisions() -> frozenset[str] | None:
    """The revisions no migration builds on, read from the `revision = …` and
    `down_revision = …` lines of the migration files (as Alembic reads them: tests/db checks
    the two agree); None when a file has no such pair of plain literals."""
    revisions: set[str] = set()
    built_on: set[str] = set()
    for script in (MIGRATIONS_DIR / "versions").glob("*.py"):
        found = dict(_ASSIGNED.findall(script.read_text(encoding="utf-8")))
        try:
            revision = ast.literal_eval(found["revision"])
            down = ast.literal_eval(found["down_revision"])
        except (KeyError, ValueError, SyntaxError):
            return None
        if not isinstance(revision, str):
            return None
        revisions.add(revision)
        if isinstance(down, str):
            built_on.add(down)
        elif isinstance(down, tuple) and all(isinstance(name, str) for name in down):
            built_on.update(down)
        elif down is not None:
            return None
    return frozenset(revisions - built_on) or None


def stored_revisions(async_url: str) -> frozenset[str]:
    """The revisions the database's version table holds (none on a new database)."""
    engine = create_engine(sync_url(async_url), poolclass=pool.NullPool, hide_parameters=True)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table(VERSION_TABLE):
                return frozenset()
            rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))  # noqa: S608
            return frozenset(str(row[0]) for row in rows)
    finally:
        engine.dispose()


@contextmanager
def _sqlite_migration_lock(async_url: str) -> Iterator[None]:
    database = make_url(sync_url(async_url)).database
    if not async_url.startswith("sqlite") or not database or database == ":memory:":
        yield
        return
    lock_path = Path(database).with_name(Path(database).name + ".migrate-lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
