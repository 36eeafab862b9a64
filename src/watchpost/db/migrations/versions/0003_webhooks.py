"""webhooks: outgoing webhooks and custom webhook templates"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    shapes.create_team_table(
        "custom_webhook_templates",
        shapes.string("http_method", 8),
        shapes.string("auth_username", 255, nullable=True),
        shapes.text("auth_password_encrypted", nullable=True),
        shapes.json("headers_template"),
        shapes.text("body_template", nullable=True),
        *shapes.object_columns(),
    )

    shapes.create_team_table(
        "outgoing_webhooks",
        shapes.string("name", 255),
        shapes.string("url", 2048),
        shapes.string("trigger_type", 32),
        *(
            shapes.boolean(f"on_incident_{event}")
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
        uniques=["custom_webhook_template_id"],
        indexes=("team_id", ("team_id", "trigger_type")),
    )


def downgrade() -> None:
    shapes.drop_table("outgoing_webhooks", "team_id", ("team_id", "trigger_type"))
    shapes.drop_table("custom_webhook_templates", "team_id")
