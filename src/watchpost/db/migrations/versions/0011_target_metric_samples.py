"""target metric samples: the values collectors report for their targets"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    shapes.create_team_table(
        "target_metric_samples",
        shapes.reference("target_id"),
        shapes.moment("at"),
        shapes.json("values"),
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.foreign_key(
            "target_metric_samples", "target_id", "collector_targets", ondelete="CASCADE"
        ),
        indexes=("at", ("target_id", "at"), "team_id"),
    )


def downgrade() -> None:
    shapes.drop_table("target_metric_samples", "at", ("target_id", "at"), "team_id")
