"""status page subscribers, maintenance announcements still due, and deliveries to
subscribers"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0027"
down_revision = "0029"

SUBSCRIBER_INDEXES: tuple[shapes.IndexKey, ...] = ("status_page_id", "team_id")
ANNOUNCEMENT_INDEXES: tuple[shapes.IndexKey, ...] = ("next_at", "team_id")


def upgrade() -> None:
    shapes.create_owned_table(
        "status_page_subscribers",
        shapes.reference("status_page_id"),
        shapes.string("kind", 16),
        shapes.text("address"),
        shapes.string("address_key", 64),
        shapes.json("resource_ids"),
        shapes.json("pending_resource_ids"),
        shapes.moment("confirmed_at", nullable=True),
        shapes.moment("requested_at"),
        shapes.string("confirm_nonce", 32),
        shapes.string("unsubscribe_nonce", 32),
        shapes.text("signing_secret_encrypted", nullable=True),
        shapes.text("pending_secret_encrypted", nullable=True),
        *shapes.object_columns(),
        shapes.foreign_key(
            "status_page_subscribers", "status_page_id", "status_pages", ondelete="CASCADE"
        ),
        shapes.unique("status_page_subscribers", "status_page_id", "address_key"),
        indexes=SUBSCRIBER_INDEXES,
    )
    shapes.create_team_table(
        "status_report_announcements",
        shapes.reference("status_report_id"),
        shapes.string("phase", 16),
        shapes.moment("next_at"),
        shapes.reference("team_id"),
        shapes.foreign_key(
            "status_report_announcements", "status_report_id", "status_reports", ondelete="CASCADE"
        ),
        primary=("status_report_id",),
        indexes=ANNOUNCEMENT_INDEXES,
    )
    # No foreign key: adding one to SQLite's deliveries would rebuild the table; unsubscribing
    # deletes the subscriber's deliveries (subscriptions/service.py).
    op.add_column("deliveries", shapes.reference("subscriber_id", nullable=True))
    shapes.create_indexes("deliveries", "subscriber_id")


def downgrade() -> None:
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deliveries_subscriber_id"))
    op.drop_column("deliveries", "subscriber_id")
    shapes.drop_table("status_report_announcements", *ANNOUNCEMENT_INDEXES)
    shapes.drop_table("status_page_subscribers", *SUBSCRIBER_INDEXES)
