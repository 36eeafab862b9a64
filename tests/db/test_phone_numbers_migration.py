"""Migration 0036: people's phone numbers, on SQLite and PostgreSQL: a person already there
has none after the upgrade, the column is the model's, and down to 0035 it goes (the rest of
the person kept) and up again."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from tests.factories.migrations import differences, fresh_database
from watchpost.db.migrate import alembic_config, sync_url, upgrade


def _people(url: str) -> list[tuple[object, ...]]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            columns = [c["name"] for c in sa.inspect(conn).get_columns("users")]
            wanted = "id, email" + (", phone_numbers" if "phone_numbers" in columns else "")
            return [tuple(r) for r in conn.execute(sa.text(f"SELECT {wanted} FROM users"))]  # noqa: S608
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_migration_0036_gives_people_phone_numbers(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0035")
        engine = sa.create_engine(sync_url(url))
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO users (email, name, created_at) "
                    "VALUES ('ann@example.com', 'Ann', CURRENT_TIMESTAMP)"
                )
            )
        engine.dispose()
        upgrade(url)
        ((person_id, email, numbers),) = _people(url)
        assert email == "ann@example.com"
        assert numbers in ([], "[]")  # JSON: a list on PostgreSQL, its text on SQLite
        assert differences(url, ["users", "phone_numbers"]) == []
        command.downgrade(alembic_config(url), "0035")
        assert _people(url) == [(person_id, "ann@example.com")]
        upgrade(url)
        assert differences(url, ["users", "phone_numbers"]) == []
