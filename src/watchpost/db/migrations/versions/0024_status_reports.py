"""status reports and their updates"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0024"
down_revision = "0023"

REPORT_INDEXES: tuple[shapes.IndexKey, ...] = ("status_page_id", "team_id")
UPDATE_INDEXES: tuple[shapes.IndexKey, ...] = ("status_page_id", "status_report_id", "team_id")


def upgrade() -> None:
    shapes.create_owned_table(
        "status_reports",
        shapes.reference("status_page_id"),
        shapes.text("title"),
        shapes.string("report_type", 16),
        shapes.moment("starts_at"),
        shapes.moment("ends_at", nullable=True),
        shapes.json("affected_resources"),
        shapes.boolean("resolved"),
        *shapes.object_columns(),
        shapes.foreign_key("status_reports", "status_page_id", "status_pages", ondelete="CASCADE"),
        indexes=REPORT_INDEXES,
    )
    shapes.create_owned_table(
        "status_updates",
        shapes.reference("status_page_id"),
        shapes.reference("status_report_id"),
        shapes.text("message"),
        shapes.moment("published_at"),
        shapes.boolean("notify_subscribers"),
        shapes.json("affected_resources"),
        *shapes.object_columns(),
        shapes.foreign_key("status_updates", "status_page_id", "status_pages", ondelete="CASCADE"),
        shapes.foreign_key(
            "status_updates", "status_report_id", "status_reports", ondelete="CASCADE"
        ),
        indexes=UPDATE_INDEXES,
    )


def downgrade() -> None:
    shapes.drop_table("status_updates", *UPDATE_INDEXES)
    shapes.drop_table("status_reports", *REPORT_INDEXES)
