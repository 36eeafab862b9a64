"""webhooks: outgoing webhooks and custom webhook templates"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "custom_webhook_templates",
        sa.Column("http_method", sa.String(length=8), nullable=False),
        sa.Column("auth_username", sa.String(length=255), nullable=True),
        sa.Column("auth_password_encrypted", sa.Text(), nullable=True),
        sa.Column("headers_template", sa.JSON(), nullable=False),
        sa.Column("body_template", sa.Text(), nullable=True),
        *shapes.object_columns(),
        shapes.team_foreign_key("custom_webhook_templates"),
        shapes.primary_key("custom_webhook_templates"),
    )
    shapes.create_indexes("custom_webhook_templates", "team_id")

    op.create_table(
        "outgoing_webhooks",
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("trigger_type", sa.String(length=32), nullable=False),
        *(
            sa.Column(f"on_incident_{event}", sa.Boolean(), nullable=False)
            for event in ("started", "acknowledged", "resolved", "reopened", "comment")
        ),
        shapes.reference("custom_webhook_template_id", nullable=True),
        *shapes.object_columns(),
        shapes.foreign_key(
            "outgoing_webhooks",
            "custom_webhook_template_id",
            "custom_webhook_templates",
            ondelete="SET NULL",
        ),
        shapes.team_foreign_key("outgoing_webhooks"),
        shapes.primary_key("outgoing_webhooks"),
        shapes.unique("outgoing_webhooks", "custom_webhook_template_id"),
    )
    shapes.create_indexes("outgoing_webhooks", "team_id", ("team_id", "trigger_type"))


def downgrade() -> None:
    shapes.drop_table("outgoing_webhooks", "team_id", ("team_id", "trigger_type"))
    shapes.drop_table("custom_webhook_templates", "team_id")
