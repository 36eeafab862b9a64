"""Migration 0026 on both backends: it builds exactly what the models declare (the new
tables and the incidents' reference), goes down and up again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from tests.factories.migrations import differences, fresh_database
from watchpost.db.migrate import alembic_config, sync_url, upgrade

TABLES = {"incoming_webhooks", "email_integrations"}
WATCHED = (*TABLES, "incidents", "incoming_webhook_id")


def _differences(url: str) -> list[Any]:
    return differences(url, WATCHED)


def _shape(url: str) -> tuple[set[str], set[str]]:
    """The new tables present, and the incidents' columns."""
    engine = sa.create_engine(sync_url(url))
    try:
        inspector = sa.inspect(engine)
        columns = {column["name"] for column in inspector.get_columns("incidents")}
        return set(inspector.get_table_names()) & TABLES, columns
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_migration_builds_the_models_and_goes_down_and_up(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        upgrade(url)
        tables, columns = _shape(url)
        assert tables == TABLES and "incoming_webhook_id" in columns
        assert _differences(url) == []
        command.downgrade(alembic_config(url), "0023")
        tables, columns = _shape(url)
        assert tables == set() and "incoming_webhook_id" not in columns
        upgrade(url)
        assert _shape(url)[0] == TABLES and _differences(url) == []
