"""Migration 0035: the saved searches of the log explorer, on SQLite and PostgreSQL: it
builds the model's table (columns, the unique name within a team, the team's foreign key),
goes back down to 0034 without it, and up again."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command

import watchpost.logsearch.models  # noqa: F401  (SavedSearch, in the compared metadata)
from tests.factories.migrations import differences, fresh_database, tables
from watchpost.db.migrate import alembic_config, upgrade


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_migration_0035_builds_the_saved_searches_table(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0034")
        assert tables(url, {"saved_searches", "teams"}) == {"teams"}
        upgrade(url)
        assert tables(url, {"saved_searches"}) == {"saved_searches"}
        assert differences(url, ["saved_searches"]) == []
        command.downgrade(alembic_config(url), "0034")
        assert tables(url, {"saved_searches", "teams"}) == {"teams"}
        upgrade(url)
        assert differences(url, ["saved_searches"]) == []
