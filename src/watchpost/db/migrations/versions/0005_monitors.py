"""monitors and monitor groups"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    shapes.create_group_table("monitor_groups")
    op.create_table(
        "monitors",
        sa.Column("monitor_type", sa.String(length=32), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("pronounceable_name", sa.String(length=255), nullable=True),
        shapes.reference("monitor_group_id", nullable=True),
        sa.Column("required_keyword", sa.Text(), nullable=True),
        sa.Column("port", sa.Integer(), nullable=True),
        sa.Column("http_method", sa.String(length=8), nullable=True),
        sa.Column("request_body", sa.Text(), nullable=True),
        sa.Column("request_headers", sa.JSON(), nullable=False),
        sa.Column("last_request_header_id", sa.Integer(), nullable=False),
        sa.Column("expected_status_codes", sa.JSON(), nullable=False),
        sa.Column("follow_redirects", sa.Boolean(), nullable=True),
        sa.Column("verify_ssl", sa.Boolean(), nullable=True),
        sa.Column("remember_cookies", sa.Boolean(), nullable=True),
        sa.Column("auth_username", sa.String(length=255), nullable=True),
        sa.Column("auth_password_encrypted", sa.Text(), nullable=True),
        sa.Column("check_frequency", sa.Integer(), nullable=False),
        sa.Column("confirmation_period", sa.Integer(), nullable=False),
        sa.Column("recovery_period", sa.Integer(), nullable=False),
        sa.Column("request_timeout", sa.Integer(), nullable=False),
        sa.Column("ssl_expiration", sa.Integer(), nullable=True),
        sa.Column("domain_expiration", sa.Integer(), nullable=True),
        sa.Column("regions", sa.JSON(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        shapes.moment("paused_at", nullable=True),
        shapes.moment("last_checked_at", nullable=True),
        shapes.moment("next_check_at", nullable=True),
        *shapes.object_columns(),
        *shapes.maintenance_columns(),
        *shapes.notification_columns(),
        shapes.foreign_key("monitors", "monitor_group_id", "monitor_groups", ondelete="SET NULL"),
        shapes.team_foreign_key("monitors"),
        shapes.primary_key("monitors"),
    )
    shapes.create_indexes("monitors", "monitor_group_id", "next_check_at", "team_id")


def downgrade() -> None:
    shapes.drop_table("monitors", "monitor_group_id", "next_check_at", "team_id")
    shapes.drop_table("monitor_groups", "team_id")
