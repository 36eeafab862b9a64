"""status machine: a monitor's check status, since when it fails or recovers, last error"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    with op.batch_alter_table("monitors", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "check_status", sa.String(length=16), server_default="pending", nullable=False
            )
        )
        batch_op.add_column(shapes.moment("failing_since", nullable=True))
        batch_op.add_column(shapes.moment("recovering_since", nullable=True))
        batch_op.add_column(shapes.text("last_error", nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("monitors", schema=None) as batch_op:
        batch_op.drop_column("last_error")
        batch_op.drop_column("recovering_since")
        batch_op.drop_column("failing_since")
        batch_op.drop_column("check_status")
