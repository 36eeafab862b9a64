"""Migration 0028 on both backends: the triggers that delete the metadata of an outgoing
webhook, e-mail integration or incoming webhook with it come and go with the migration (what
they do is tested through the API: test_metadata.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from tests.factories.migrations import fresh_database
from watchpost.db.migrate import alembic_config, sync_url, upgrade

NEW = {
    "forget_metadata_outgoing_webhooks",
    "forget_metadata_email_integrations",
    "forget_metadata_incoming_webhooks",
}
OLDER = {"forget_metadata_monitors", "forget_metadata_heartbeats", "forget_metadata_incidents"}


def _triggers(url: str) -> set[str]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                query = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
            else:
                query = (
                    "SELECT trigger_name FROM information_schema.triggers"
                    " WHERE trigger_schema = current_schema()"
                )
            return {name for (name,) in conn.execute(sa.text(query))} & (NEW | OLDER)
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_migration_adds_the_owners_triggers_and_goes_down_and_up(
    kind: str, tmp_path: Path
) -> None:
    with fresh_database(kind, tmp_path) as url:
        upgrade(url)
        assert _triggers(url) == NEW | OLDER
        command.downgrade(alembic_config(url), "0025")
        assert _triggers(url) == OLDER
        upgrade(url)
        assert _triggers(url) == NEW | OLDER
