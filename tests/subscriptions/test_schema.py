"""Migration 0027 on both backends: it builds exactly what the models declare (subscriber ids
never reused on SQLite), goes down and up again."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from tests.factories import migrations
from watchpost.db.migrate import alembic_config, sync_url, upgrade

TABLES = {"status_page_subscribers", "status_report_announcements"}
WATCHED = (*TABLES, "subscriber_id")


def _columns(url: str, table: str) -> set[str]:
    engine = sa.create_engine(sync_url(url))
    try:
        return {column["name"] for column in sa.inspect(engine).get_columns(table)}
    finally:
        engine.dispose()


def _autoincrement(url: str) -> bool:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            sql = conn.execute(
                sa.text("SELECT sql FROM sqlite_master WHERE name = 'status_page_subscribers'")
            ).scalar_one()
    finally:
        engine.dispose()
    return "AUTOINCREMENT" in str(sql)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_migration_builds_the_models_and_goes_down_and_up(kind: str, tmp_path: Path) -> None:
    with migrations.fresh_database(kind, tmp_path, prefix="wp_subscriptions") as url:
        upgrade(url)
        assert migrations.tables(url, TABLES) == TABLES
        assert migrations.differences(url, WATCHED) == []
        assert "subscriber_id" in _columns(url, "deliveries")
        if kind == "sqlite":
            assert _autoincrement(url)
        command.downgrade(alembic_config(url), "0029")
        assert migrations.tables(url, TABLES) == set()
        assert "subscriber_id" not in _columns(url, "deliveries")
        upgrade(url)
        assert migrations.tables(url, TABLES) == TABLES
        assert migrations.differences(url, WATCHED) == []
