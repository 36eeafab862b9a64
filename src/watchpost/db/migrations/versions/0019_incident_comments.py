"""incident comments; how many times an escalation run moved to another policy"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0019"
down_revision = "0018"

COMMENT_INDEXES: tuple[shapes.IndexKey, ...] = ("incident_id", "team_id")


def upgrade() -> None:
    shapes.create_owned_table(
        "incident_comments",
        shapes.reference("incident_id"),
        shapes.text("content"),
        shapes.reference("user_id", nullable=True),
        shapes.string("user_email", 320, nullable=True),
        *shapes.object_columns(),
        shapes.foreign_key("incident_comments", "incident_id", "incidents", ondelete="CASCADE"),
        indexes=COMMENT_INDEXES,
    )
    op.add_column(
        "policy_runs", sa.Column("hops", sa.Integer(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    op.drop_column("policy_runs", "hops")
    shapes.drop_table("incident_comments", *COMMENT_INDEXES)
