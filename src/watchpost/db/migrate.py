"""Applying the Alembic migrations (used by `watchpost serve`, `watchpost migrate`, tests)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import make_url

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def sync_url(async_url: str) -> str:
    """Migrations run synchronously: the same database through its sync driver."""
    scheme, _, rest = async_url.partition("://")
    if scheme.startswith("sqlite"):
        return f"sqlite://{rest}"
    return async_url  # postgresql+psycopg is both sync and async


def alembic_config(async_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", sync_url(async_url).replace("%", "%%"))
    return config


def upgrade(async_url: str) -> None:
    """Bring the database to the newest schema.

    Safe to run from several processes at once: on PostgreSQL they take turns on an advisory
    lock (migrations/env.py); on SQLite on an exclusive lock of a file beside the database.
    """
    with _sqlite_migration_lock(async_url):
        command.upgrade(alembic_config(async_url), "heads")


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
