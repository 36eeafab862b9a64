"""Sources' daily quota counts, shared by every process and kept across restarts"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0032"
down_revision = "0031"

TABLE = "source_quota_usage"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("source_id", shapes.id_type(), autoincrement=False, nullable=False),
        sa.Column("day", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("events", sa.BigInteger(), nullable=False),
        shapes.primary_key(TABLE, "source_id", "day"),
        shapes.foreign_key(TABLE, "source_id", "sources", ondelete="CASCADE"),
    )


def downgrade() -> None:
    op.drop_table(TABLE)
