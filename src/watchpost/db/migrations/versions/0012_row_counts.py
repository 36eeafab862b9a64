"""row counts: per-team collection sizes kept by triggers

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-21 04:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from watchpost.db.counts import backfill, create_triggers, drop_triggers

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The tables this revision counts (a later revision adds its own to counts.COUNTED_TABLES).
COUNTED_TABLES = ("sources",)


def upgrade() -> None:
    op.create_table(
        "row_counts",
        sa.Column("table_name", sa.String(length=63), nullable=False),
        sa.Column("team_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("row_count", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["teams.id"],
            name=op.f("fk_row_counts_team_id_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_name", "team_id", name=op.f("pk_row_counts")),
    )
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
    op.drop_table("row_counts")
