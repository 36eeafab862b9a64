"""heartbeats and heartbeat groups"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    shapes.create_group_table("heartbeat_groups")
    shapes.create_team_table(
        "heartbeats",
        shapes.string("name", 255),
        shapes.string("token", 64),
        shapes.integer("period"),
        shapes.integer("grace"),
        shapes.reference("heartbeat_group_id", nullable=True),
        shapes.integer("sort_index"),
        shapes.boolean("paused"),
        shapes.moment("paused_at", nullable=True),
        shapes.string("status", 16),
        shapes.moment("last_ping_at", nullable=True),
        shapes.moment("next_due_at", nullable=True),
        *shapes.object_columns(),
        *shapes.maintenance_columns(),
        *shapes.notification_columns(),
        shapes.foreign_key(
            "heartbeats", "heartbeat_group_id", "heartbeat_groups", ondelete="SET NULL"
        ),
        uniques=["token"],
        indexes=("heartbeat_group_id", "next_due_at", "team_id"),
    )


def downgrade() -> None:
    shapes.drop_table("heartbeats", "heartbeat_group_id", "next_due_at", "team_id")
    shapes.drop_table("heartbeat_groups", "team_id")
