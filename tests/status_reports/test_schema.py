"""Migration 0024 on both backends: it builds exactly what the models declare (ids never
reused on SQLite), goes down and up again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from tests.conftest import postgres_schema
from watchpost.db.migrate import alembic_config, sync_url, upgrade
from watchpost.db.registry import all_metadata
from watchpost.settings import Settings

TABLES = {"status_reports", "status_updates"}


@contextmanager
def fresh_database(kind: str, folder: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield Settings(database_url=f"sqlite:///{folder / 'm.db'}").async_database_url
    else:
        with postgres_schema("wp_reports") as url:
            yield Settings(database_url=url).async_database_url


def _differences(url: str) -> list[Any]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), all_metadata())
    finally:
        engine.dispose()
    return [diff for diff in diffs if any(table in str(diff) for table in TABLES)]


def _tables(url: str) -> set[str]:
    engine = sa.create_engine(sync_url(url))
    try:
        return set(sa.inspect(engine).get_table_names()) & TABLES
    finally:
        engine.dispose()


def _autoincrement(url: str) -> bool:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            sql = conn.execute(
                sa.text(
                    "SELECT group_concat(sql) FROM sqlite_master WHERE name IN "
                    "('status_reports', 'status_updates')"
                )
            ).scalar_one()
    finally:
        engine.dispose()
    return str(sql).count("AUTOINCREMENT") == 2


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_migration_builds_the_models_and_goes_down_and_up(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        upgrade(url)
        assert _tables(url) == TABLES
        assert _differences(url) == []
        if kind == "sqlite":
            assert _autoincrement(url)
        command.downgrade(alembic_config(url), "0023")
        assert _tables(url) == set()
        upgrade(url)
        assert _tables(url) == TABLES and _differences(url) == []
