"""Heartbeats keep a log of their last pings: when, success or failure, the exit code, the
first 10 KB of the body, the client's address and user agent

`heartbeat_pings` is a ring of 100 rows per heartbeat: ping number `seq` (from the
heartbeat's new `ping_count`) takes slot `seq % 100`, replacing the one 100 pings older, so
the table never needs pruning. Its rows go with their heartbeat (foreign key, cascade).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0034"
down_revision = "0033"

TABLE = "heartbeat_pings"


def upgrade() -> None:
    # ADD COLUMN in place (a constant default): no rebuild, AUTOINCREMENT kept on SQLite.
    op.add_column(
        "heartbeats",
        sa.Column("ping_count", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    op.create_table(
        TABLE,
        shapes.reference("heartbeat_id"),
        shapes.integer("slot"),
        shapes.integer("seq"),
        shapes.moment("at"),
        shapes.string("kind", 16),
        shapes.integer("exit_code", nullable=True),
        shapes.text("body", nullable=True),
        shapes.boolean("body_truncated"),
        shapes.string("address", 64, nullable=True),
        shapes.string("user_agent", 255, nullable=True),
        shapes.foreign_key(TABLE, "heartbeat_id", "heartbeats", ondelete="CASCADE"),
        shapes.primary_key(TABLE, "heartbeat_id", "slot"),
    )


def downgrade() -> None:
    op.drop_table(TABLE)
    bind = op.get_bind()
    # SQLite drops a column by rebuilding the table, and its triggers (row counts, metadata
    # owners) die with the old one: made again from their own text afterwards.
    triggers = (
        list(
            bind.execute(
                sa.text(
                    "SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                    "AND tbl_name = 'heartbeats'"
                )
            ).scalars()
        )
        if bind.dialect.name == "sqlite"
        else []
    )
    with op.batch_alter_table("heartbeats", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_column("ping_count")
    for sql in triggers:
        op.execute(sql)
