"""Metadata of outgoing webhooks, e-mail integrations and incoming webhooks, deleted with them"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0028"
down_revision = "0025"

TABLE = "metadata_records"
OWNERS = (
    ("outgoing_webhooks", "WebhookIntegration"),
    ("email_integrations", "EmailIntegration"),
    ("incoming_webhooks", "IncomingWebhook"),
)
"""The tables whose rows now own metadata too, and the owner_type naming them (as 0025 did
for monitors, heartbeats and incidents)."""


def upgrade() -> None:
    for statement in shapes.owner_triggers(op.get_bind().dialect.name, TABLE, OWNERS):
        op.execute(statement)


def downgrade() -> None:
    owner_types = ", ".join(f"'{owner_type}'" for _, owner_type in OWNERS)
    op.execute(f"DELETE FROM {TABLE} WHERE owner_type IN ({owner_types})")  # noqa: S608
    for statement in shapes.drop_owner_triggers(op.get_bind().dialect.name, OWNERS):
        op.execute(statement)
