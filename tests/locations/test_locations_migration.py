"""Migration 0038: locations, probe tokens and location checks, on SQLite and PostgreSQL: the
server's own location is seeded, an existing monitor stays checked by the server alone, the
schema is the models', and down to 0037 and up again it goes."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from tests.factories.migrations import differences, fresh_database, tables
from watchpost.db.migrate import alembic_config, sync_url, upgrade

NEW = {"locations", "probe_tokens", "location_checks"}
WATCHED = [
    *NEW,
    "checked_here",
    "located",
    "confirmation_rule",
    "confirmation_locations",
    "degraded_since",
    "location_id",
    "monitors.locations",
]


def _rows(url: str, query: str) -> list[tuple[object, ...]]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(sa.text(query))]
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_migration_0038_adds_locations(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0037")
        engine = sa.create_engine(sync_url(url))
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO teams (name, created_at, require_two_factor) "
                    "VALUES ('t', CURRENT_TIMESTAMP, false)"
                )
            )
        engine.dispose()
        upgrade(url)
        assert tables(url, NEW) == NEW
        assert _rows(url, "SELECT name, region, is_server, private FROM locations") == [
            ("local", "us", True, False)
        ]
        assert differences(url, WATCHED) == []
        command.downgrade(alembic_config(url), "0037")
        assert tables(url, NEW) == set()
        assert _rows(url, "SELECT name FROM teams") == [("t",)]
        upgrade(url)
        assert differences(url, WATCHED) == []
        assert len(_rows(url, "SELECT id FROM locations")) == 1
