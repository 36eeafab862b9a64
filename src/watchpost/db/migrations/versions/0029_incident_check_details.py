"""What a monitor's incident was about when it opened: url, method, regions, check details"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0029"
down_revision = "0028"


def upgrade() -> None:
    # ADD COLUMN: no table rebuild (incidents carry the metadata triggers of 0025)
    op.add_column("incidents", shapes.json("check_details", nullable=True))


def downgrade() -> None:
    # plain ALTER TABLE … DROP COLUMN (SQLite ≥ 3.35): a rebuild would lose the triggers
    op.drop_column("incidents", "check_details")
