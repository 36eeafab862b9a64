"""PagerDuty integrations (the hosted API's pager-duty-webhooks) and their deliveries"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0023"
down_revision = "0022"


def upgrade() -> None:
    shapes.create_owned_table(
        "pager_duty_webhooks",
        shapes.string("name", 255),
        shapes.string("key", 128),
        shapes.string("severity", 16),
        shapes.boolean("notify_alongside_primary_responder"),
        *shapes.object_columns(),
    )
    # No foreign key: adding one to SQLite's deliveries would rebuild the table; deleting an
    # integration deletes its deliveries (pagerduty/service.py).
    op.add_column("deliveries", shapes.reference("pagerduty_id", nullable=True))


def downgrade() -> None:
    op.drop_column("deliveries", "pagerduty_id")
    shapes.drop_table("pager_duty_webhooks", "team_id")
