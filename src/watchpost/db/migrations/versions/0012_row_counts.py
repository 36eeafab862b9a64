"""row counts: per-team collection sizes kept by triggers"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0012"
down_revision = "0011"

# The tables this revision counts (a later revision adds its own to counts.COUNTED_TABLES).
COUNTED_TABLES = ("sources",)


def upgrade() -> None:
    op.create_table(
        "row_counts",
        sa.Column("table_name", sa.String(length=63), nullable=False),
        shapes.reference("team_id"),
        sa.Column("row_count", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        shapes.team_foreign_key("row_counts"),
        shapes.primary_key("row_counts", "table_name", "team_id"),
    )
    shapes.start_counting(COUNTED_TABLES)


def downgrade() -> None:
    shapes.stop_counting(COUNTED_TABLES)
    op.drop_table("row_counts")
