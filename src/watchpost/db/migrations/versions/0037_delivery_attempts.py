"""Deliveries keep a log of their attempts: when, the status code or error, the duration, the
first KB of the answer and the next attempt each scheduled

`delivery_attempts` is a ring of 50 rows per delivery: attempt number `number` takes slot
`number % 50`, replacing the one 50 attempts older (only manual retries go that far), so the
table never needs pruning. Its rows go with their delivery (foreign key, cascade). Deliveries
made before this revision have no attempts logged.
"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0037"
down_revision = "0036"

TABLE = "delivery_attempts"
ORDER = ("delivery_id", "number")


def upgrade() -> None:
    op.create_table(
        TABLE,
        shapes.reference("delivery_id"),
        shapes.integer("slot"),
        shapes.reference("team_id"),
        shapes.integer("number"),
        shapes.moment("attempted_at"),
        shapes.integer("status_code", nullable=True),
        shapes.integer("duration_ms", nullable=True),
        shapes.text("response_excerpt", nullable=True),
        shapes.text("error", nullable=True),
        shapes.moment("next_attempt_at", nullable=True),
        shapes.foreign_key(TABLE, "delivery_id", "deliveries", ondelete="CASCADE"),
        shapes.primary_key(TABLE, "delivery_id", "slot"),
    )
    shapes.create_indexes(TABLE, ORDER)


def downgrade() -> None:
    shapes.drop_table(TABLE, ORDER)
