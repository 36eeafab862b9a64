"""target metric samples: the values collectors report for their targets"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    op.create_table(
        "target_metric_samples",
        shapes.reference("target_id"),
        shapes.moment("at"),
        sa.Column("values", sa.JSON(), nullable=False),
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.foreign_key(
            "target_metric_samples", "target_id", "collector_targets", ondelete="CASCADE"
        ),
        shapes.team_foreign_key("target_metric_samples"),
        shapes.primary_key("target_metric_samples"),
    )
    shapes.create_indexes("target_metric_samples", "at", ("target_id", "at"), "team_id")


def downgrade() -> None:
    shapes.drop_table("target_metric_samples", "at", ("target_id", "at"), "team_id")
