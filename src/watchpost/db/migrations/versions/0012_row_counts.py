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
    shapes.create_team_table(
        "row_counts",
        shapes.string("table_name", 63),
        shapes.reference("team_id"),
        sa.Column("row_count", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        primary=("table_name", "team_id"),
        indexes=(),
    )
    shapes.start_counting(COUNTED_TABLES)


def downgrade() -> None:
    shapes.stop_counting(COUNTED_TABLES)
    op.drop_table("row_counts")
