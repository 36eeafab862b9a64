"""engine: scheduling columns (next check, lease) on monitors and collector targets"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    with op.batch_alter_table("collector_targets", schema=None) as batch_op:
        batch_op.add_column(shapes.moment("next_check_at", nullable=True))
        batch_op.add_column(shapes.string("lease_owner", 128, nullable=True))
        batch_op.add_column(shapes.moment("lease_expires_at", nullable=True))
        batch_op.create_index("ix_collector_targets_next_check_at", ["next_check_at"], unique=False)

    with op.batch_alter_table("monitors", schema=None) as batch_op:
        batch_op.add_column(shapes.string("lease_owner", 128, nullable=True))
        batch_op.add_column(shapes.moment("lease_expires_at", nullable=True))

    # Targets that existed before the engine are due at once (created_at is in the past).
    op.execute("UPDATE collector_targets SET next_check_at = created_at WHERE enabled")


def downgrade() -> None:
    with op.batch_alter_table("monitors", schema=None) as batch_op:
        batch_op.drop_column("lease_expires_at")
        batch_op.drop_column("lease_owner")

    with op.batch_alter_table("collector_targets", schema=None) as batch_op:
        batch_op.drop_index("ix_collector_targets_next_check_at")
        batch_op.drop_column("lease_expires_at")
        batch_op.drop_column("lease_owner")
        batch_op.drop_column("next_check_at")
