"""Checking one migration on both backends: a fresh database of each kind, and what the
migrated schema differs from the models in, or holds, among the names a test watches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from tests.conftest import postgres_schema
from watchpost.db.migrate import sync_url
from watchpost.db.registry import all_metadata
from watchpost.settings import Settings


@contextmanager
def fresh_database(kind: str, folder: Path, *, prefix: str = "wp_migration") -> Iterator[str]:
    """An empty database of that kind ("sqlite" or "postgres"), as an async URL."""
    if kind == "sqlite":
        yield Settings(database_url=f"sqlite:///{folder / 'm.db'}").async_database_url
    else:
        with postgres_schema(prefix) as url:
            yield Settings(database_url=url).async_database_url


def differences(url: str, watched: Iterable[str]) -> list[Any]:
    """How the database's schema differs from the models, where a difference names one of
    `watched` (tables, columns)."""
    names = tuple(watched)
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), all_metadata())
    finally:
        engine.dispose()
    return [diff for diff in diffs if any(name in str(diff) for name in names)]


def tables(url: str, wanted: set[str]) -> set[str]:
    """Which of `wanted` the database holds."""
    engine = sa.create_engine(sync_url(url))
    try:
        return set(sa.inspect(engine).get_table_names()) & wanted
    finally:
        engine.dispose()
