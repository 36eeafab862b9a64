"""row counts of monitors and heartbeats

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-21 04:25:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from watchpost.db.counts import start_counting, stop_counting

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The tables this revision counts (row_counts itself came with 0012).
COUNTED_TABLES = ("monitors", "heartbeats")


def upgrade() -> None:
    start_counting(op.execute, op.get_bind().dialect.name, COUNTED_TABLES)


def downgrade() -> None:
    stop_counting(op.execute, op.get_bind().dialect.name, COUNTED_TABLES)
