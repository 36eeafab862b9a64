"""A webhook subscriber's failing streak (removed once every delivery failed for days)"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0030"
down_revision = "0027"


def upgrade() -> None:
    # ADD COLUMN: no table rebuild
    op.add_column("status_page_subscribers", shapes.moment("failing_since", nullable=True))


def downgrade() -> None:
    op.drop_column("status_page_subscribers", "failing_since")
