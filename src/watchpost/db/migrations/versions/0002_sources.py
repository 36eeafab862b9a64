"""sources (where logs and metrics arrive) and source groups"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "source_groups",
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("sort_index", sa.Integer(), nullable=False),
        *shapes.object_columns(),
        shapes.team_foreign_key("source_groups"),
        shapes.primary_key("source_groups"),
        shapes.unique("source_groups", "team_id", "name"),
    )
    shapes.create_indexes("source_groups", "team_id")

    op.create_table(
        "sources",
        shapes.reference("team_id"),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("platform", sa.String(length=64), nullable=False),
        shapes.reference("source_group_id", nullable=True),
        sa.Column("table_name", sa.String(length=63), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("token_encrypted", sa.Text(), nullable=False),
        sa.Column("ingesting_paused", sa.Boolean(), nullable=False),
        sa.Column("logs_retention", sa.Integer(), nullable=False),
        sa.Column("metrics_retention", sa.Integer(), nullable=False),
        sa.Column("live_tail_pattern", sa.Text(), nullable=False),
        shapes.id_column(),
        shapes.moment("created_at"),
        shapes.moment("updated_at"),
        shapes.foreign_key("sources", "source_group_id", "source_groups", ondelete="SET NULL"),
        shapes.team_foreign_key("sources"),
        shapes.primary_key("sources"),
        shapes.unique("sources", "table_name"),
        shapes.unique("sources", "token_hash"),
    )
    shapes.create_indexes("sources", ("source_group_id", "id"), ("team_id", "id"))


def downgrade() -> None:
    shapes.drop_table("sources", ("source_group_id", "id"), ("team_id", "id"))
    shapes.drop_table("source_groups", "team_id")
