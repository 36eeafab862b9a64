"""sources (where logs and metrics arrive) and source groups"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    shapes.create_team_table(
        "source_groups",
        shapes.string("name", 255),
        shapes.integer("sort_index"),
        *shapes.object_columns(),
        uniques=[("team_id", "name")],
    )

    shapes.create_team_table(
        "sources",
        shapes.reference("team_id"),
        shapes.string("name", 255),
        shapes.string("platform", 64),
        shapes.reference("source_group_id", nullable=True),
        shapes.string("table_name", 63),
        shapes.string("token_hash", 64),
        shapes.text("token_encrypted"),
        shapes.boolean("ingesting_paused"),
        shapes.integer("logs_retention"),
        shapes.integer("metrics_retention"),
        shapes.text("live_tail_pattern"),
        shapes.id_column(),
        shapes.moment("created_at"),
        shapes.moment("updated_at"),
        shapes.foreign_key("sources", "source_group_id", "source_groups", ondelete="SET NULL"),
        uniques=["table_name", "token_hash"],
        indexes=(("source_group_id", "id"), ("team_id", "id")),
    )


def downgrade() -> None:
    shapes.drop_table("sources", ("source_group_id", "id"), ("team_id", "id"))
    shapes.drop_table("source_groups", "team_id")
