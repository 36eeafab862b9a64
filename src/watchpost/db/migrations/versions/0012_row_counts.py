"""row counts: per-team collection sizes kept by triggers

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-21 04:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from watchpost.db.counts import start_counting, stop_counting

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
    start_counting(op.execute, op.get_bind().dialect.name, COUNTED_TABLES)


def downgrade() -> None:
    stop_counting(op.execute, op.get_bind().dialect.name, COUNTED_TABLES)
    op.drop_table("row_counts")
