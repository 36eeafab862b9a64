"""row counts of monitors and heartbeats

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-21 04:25:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from watchpost.db.counts import backfill, create_triggers, drop_triggers

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The tables this revision counts (row_counts itself came with 0012).
COUNTED_TABLES = ("monitors", "heartbeats")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in COUNTED_TABLES:
        op.execute(backfill(table))
        for statement in create_triggers(dialect, table):
            op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in COUNTED_TABLES:
        for statement in drop_triggers(dialect, table):
            op.execute(statement)
