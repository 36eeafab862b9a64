"""the hosted API's attributes of sources, collectors and outgoing webhooks"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0021"
down_revision = "0020"


def upgrade() -> None:
    # Settings kept without effect here (sources/hosted.py, collectors/hosted.py).
    op.add_column("sources", shapes.json("settings", nullable=True))
    op.add_column("collectors", shapes.json("settings", nullable=True))
    # No foreign key (SQLite would need a rebuild of the table); deleting a source group
    # clears it, as it ungroups the group's sources.
    op.add_column("collectors", shapes.reference("source_group_id", nullable=True))
    op.add_column(
        "outgoing_webhooks",
        sa.Column(
            "notify_alongside_primary_responder",
            sa.Boolean(),
            nullable=False,
            server_default=sa.true(),
        ),
    )


def downgrade() -> None:
    op.drop_column("outgoing_webhooks", "notify_alongside_primary_responder")
    op.drop_column("collectors", "source_group_id")
    op.drop_column("collectors", "settings")
    op.drop_column("sources", "settings")
