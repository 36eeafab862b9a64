"""monitors and monitor groups"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    shapes.create_group_table("monitor_groups")
    shapes.create_team_table(
        "monitors",
        shapes.string("monitor_type", 32),
        shapes.string("url", 2048),
        shapes.string("pronounceable_name", 255, nullable=True),
        shapes.reference("monitor_group_id", nullable=True),
        shapes.text("required_keyword", nullable=True),
        shapes.integer("port", nullable=True),
        shapes.string("http_method", 8, nullable=True),
        shapes.text("request_body", nullable=True),
        shapes.json("request_headers"),
        shapes.integer("last_request_header_id"),
        shapes.json("expected_status_codes"),
        shapes.boolean("follow_redirects", nullable=True),
        shapes.boolean("verify_ssl", nullable=True),
        shapes.boolean("remember_cookies", nullable=True),
        shapes.string("auth_username", 255, nullable=True),
        shapes.text("auth_password_encrypted", nullable=True),
        shapes.integer("check_frequency"),
        shapes.integer("confirmation_period"),
        shapes.integer("recovery_period"),
        shapes.integer("request_timeout"),
        shapes.integer("ssl_expiration", nullable=True),
        shapes.integer("domain_expiration", nullable=True),
        shapes.json("regions"),
        shapes.boolean("paused"),
        shapes.string("status", 16),
        shapes.moment("paused_at", nullable=True),
        shapes.moment("last_checked_at", nullable=True),
        shapes.moment("next_check_at", nullable=True),
        *shapes.object_columns(),
        *shapes.maintenance_columns(),
        *shapes.notification_columns(),
        shapes.foreign_key("monitors", "monitor_group_id", "monitor_groups", ondelete="SET NULL"),
        indexes=("monitor_group_id", "next_check_at", "team_id"),
    )


def downgrade() -> None:
    shapes.drop_table("monitors", "monitor_group_id", "next_check_at", "team_id")
    shapes.drop_table("monitor_groups", "team_id")
