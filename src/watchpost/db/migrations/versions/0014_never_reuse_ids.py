"""ids are never reused: AUTOINCREMENT on every SQLite table with an integer id

Without AUTOINCREMENT, SQLite hands out max(id) + 1, so deleting the newest object gives its
id to the next one: a client (or a Terraform state) still holding the old id silently reaches
a different object. PostgreSQL sequences never go back, so this revision changes nothing there.

SQLite cannot add AUTOINCREMENT to an existing table: each table is rebuilt (Alembic batch
mode: create the new table, copy the rows, drop the old one, rename), keeping its rows, ids,
indexes and constraints. Triggers die with the old table and are created again from their own
text (the row_counts triggers of 0012 and 0013). Copying the rows with their ids sets
sqlite_sequence to the current largest id, so new ids start above every id that still exists
(ids deleted above that before this revision cannot be known and are not protected).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"

# Every table with an integer `id` primary key at revision 0013, parents before children.
TABLES = (
    "teams",
    "api_tokens",
    "users",
    "collectors",
    "collector_targets",
    "target_metric_samples",
    "source_groups",
    "sources",
    "custom_webhook_templates",
    "outgoing_webhooks",
    "heartbeat_groups",
    "heartbeats",
    "monitor_groups",
    "monitors",
    "status_pages",
    "status_page_sections",
    "status_page_resources",
    "incidents",
    "incident_events",
    "check_results",
)


def upgrade() -> None:
    _rebuild(autoincrement=True)


def downgrade() -> None:
    _rebuild(autoincrement=False)


def _rebuild(*, autoincrement: bool) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    # Dropping a parent table with foreign keys enforced would cascade into its children.
    # Migration connections never enable them (only the app's do); make sure of it.
    if bind.exec_driver_sql("PRAGMA foreign_keys").scalar():
        raise RuntimeError("migration 0014 must run with PRAGMA foreign_keys=OFF")
    for table in TABLES:
        triggers = bind.execute(
            sa.text("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = :t"),
            {"t": table},
        ).scalars()
        trigger_sql = list(triggers)
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
        ):
            pass
        for sql in trigger_sql:
            op.execute(sql)
    problems = bind.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if problems:
        raise RuntimeError(f"migration 0014 broke foreign keys: {problems[:5]}")
