"""row counts of monitors and heartbeats"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0013"
down_revision = "0012"

# The tables this revision counts (row_counts itself came with 0012).
COUNTED_TABLES = ("monitors", "heartbeats")


def upgrade() -> None:
    shapes.start_counting(COUNTED_TABLES)


def downgrade() -> None:
    shapes.stop_counting(COUNTED_TABLES)
