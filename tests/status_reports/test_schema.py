"""Migration 0024 on both backends: it builds exactly what the models declare (ids never
reused on SQLite), goes down and up again."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from tests.factories import migrations
from watchpost.db.migrate import alembic_config, sync_url, upgrade

TABLES = {"status_reports", "status_updates"}


def fresh_database(kind: str, folder: Path) -> AbstractContextManager[str]:
    return migrations.fresh_database(kind, folder, prefix="wp_reports")


def _differences(url: str) -> list[Any]:
    return migrations.differences(url, TABLES)


def _tables(url: str) -> set[str]:
    return migrations.tables(url, TABLES)


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
