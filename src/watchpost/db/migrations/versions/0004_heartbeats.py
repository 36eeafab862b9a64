"""heartbeats and heartbeat groups"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    shapes.create_group_table("heartbeat_groups")
    op.create_table(
        "heartbeats",
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("period", sa.Integer(), nullable=False),
        sa.Column("grace", sa.Integer(), nullable=False),
        shapes.reference("heartbeat_group_id", nullable=True),
        sa.Column("sort_index", sa.Integer(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        shapes.moment("paused_at", nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        shapes.moment("last_ping_at", nullable=True),
        shapes.moment("next_due_at", nullable=True),
        *shapes.object_columns(),
        *shapes.maintenance_columns(),
        *shapes.notification_columns(),
        shapes.foreign_key(
            "heartbeats", "heartbeat_group_id", "heartbeat_groups", ondelete="SET NULL"
        ),
        shapes.team_foreign_key("heartbeats"),
        shapes.primary_key("heartbeats"),
        shapes.unique("heartbeats", "token"),
    )
    shapes.create_indexes("heartbeats", "heartbeat_group_id", "next_due_at", "team_id")


def downgrade() -> None:
    shapes.drop_table("heartbeats", "heartbeat_group_id", "next_due_at", "team_id")
    shapes.drop_table("heartbeat_groups", "team_id")
