"""incoming webhooks (the hosted API's /api/v2/incoming-webhooks) and the incidents they open;
e-mail integrations (/api/v2/email-integrations), stored"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0026"
down_revision = "0024"

RULES = ("started_rules", "acknowledged_rules", "resolved_rules")
FIELDS = (
    "cause_field",
    "title_field",
    "started_alert_id_field",
    "acknowledged_alert_id_field",
    "resolved_alert_id_field",
)
FIELD_LISTS = ("other_started_fields", "other_acknowledged_fields", "other_resolved_fields")
INCIDENT_INDEX = ("incoming_webhook_id", "resolved_at")


def _integration_columns() -> list[sa.Column[Any]]:
    """incoming/models.IntegrationColumns."""
    return [
        shapes.string("name", 255),
        *shapes.notification_columns(),
        shapes.reference("policy_id", nullable=True),
        sa.Column("critical_alert", sa.Boolean(), nullable=False, server_default=sa.false()),
        shapes.integer("recovery_period"),
        shapes.boolean("paused"),
        shapes.string("started_rule_type", 16),
        shapes.string("acknowledged_rule_type", 16),
        shapes.string("resolved_rule_type", 16),
        *(shapes.json(name) for name in RULES),
        *(shapes.json(name, nullable=True) for name in FIELDS),
        *(shapes.json(name) for name in FIELD_LISTS),
    ]


def upgrade() -> None:
    shapes.create_owned_table(
        "incoming_webhooks",
        *_integration_columns(),
        shapes.string("token", 64),
        shapes.text("sample_query_string", nullable=True),
        shapes.text("sample_headers", nullable=True),
        shapes.text("sample_body", nullable=True),
        *shapes.object_columns(),
        shapes.unique("incoming_webhooks", "token"),
    )
    shapes.create_owned_table(
        "email_integrations", *_integration_columns(), *shapes.object_columns()
    )
    # SQLite may rebuild the table for the foreign key: it must keep AUTOINCREMENT (0014).
    with op.batch_alter_table("incidents", table_kwargs={"sqlite_autoincrement": True}) as batch_op:
        batch_op.add_column(shapes.reference("incoming_webhook_id", nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_incidents_incoming_webhook_id_incoming_webhooks"),
            "incoming_webhooks",
            ["incoming_webhook_id"],
            ["id"],
            ondelete="SET NULL",
        )
    shapes.create_indexes("incidents", INCIDENT_INDEX)


def downgrade() -> None:
    with op.batch_alter_table("incidents", table_kwargs={"sqlite_autoincrement": True}) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incidents_incoming_webhook_id_resolved_at"))
        batch_op.drop_constraint(
            batch_op.f("fk_incidents_incoming_webhook_id_incoming_webhooks"), type_="foreignkey"
        )
        batch_op.drop_column("incoming_webhook_id")
    shapes.drop_table("email_integrations", "team_id")
    shapes.drop_table("incoming_webhooks", "team_id")
