"""alert delivery: the outbox (delivery_events, deliveries), webhook signing keys, whom an
incident alerts (its notification fields), notification channels (Apprise URLs)"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0015"
down_revision = "0014"


def _optional(spec: str) -> list[sa.Column[Any]]:
    """Nullable columns from "type name, type name, …" (types: text, moment, integer)."""
    makers = {"text": shapes.text, "moment": shapes.moment, "integer": shapes.integer}
    columns: list[sa.Column[Any]] = []
    for item in spec.split(","):
        kind, name = item.split()
        columns.append(makers[kind](name, nullable=True))
    return columns


WEBHOOK_COLUMNS = _optional(
    "text signing_secret_encrypted, text previous_secret_encrypted, "
    "moment previous_secret_expires_at, moment failing_since, moment disabled_at, "
    "text disabled_reason"
)


def _flag(name: str, default: bool) -> sa.Column[bool]:
    """A boolean that existing rows get as `default`."""
    return sa.Column(
        name, sa.Boolean(), nullable=False, server_default=sa.true() if default else sa.false()
    )


INCIDENT_COLUMNS = (
    _flag("call", False),
    _flag("sms", False),
    _flag("email", True),
    _flag("push", False),
    _flag("critical_alert", False),
    shapes.integer("team_wait", nullable=True),
    shapes.reference("policy_id", nullable=True),
    shapes.text("description", nullable=True),
)
EVENT_INDEXES: tuple[shapes.IndexKey, ...] = (
    "created_at",
    "dispatched_at",
    ("subject_type", "subject_id"),
    "team_id",
)
DELIVERY_INDEXES: tuple[shapes.IndexKey, ...] = (
    "event_id",
    ("state", "next_attempt_at"),
    ("webhook_id", "id"),
    "team_id",
)


def upgrade() -> None:
    with op.batch_alter_table("outgoing_webhooks") as batch_op:
        for column in WEBHOOK_COLUMNS:
            batch_op.add_column(column)
    # SQLite may rebuild the table for these columns: it must keep AUTOINCREMENT (0014).
    with op.batch_alter_table("incidents", table_kwargs={"sqlite_autoincrement": True}) as batch_op:
        for column in INCIDENT_COLUMNS:
            batch_op.add_column(column)
    shapes.create_owned_table(
        "notification_channels",
        shapes.string("name", 255),
        shapes.string("service", 64),
        shapes.text("url_encrypted"),
        *shapes.object_columns(),
    )
    shapes.create_owned_table(
        "delivery_events",
        shapes.string("trigger_type", 32),
        shapes.string("event", 32),
        shapes.string("subject_type", 32),
        shapes.reference("subject_id"),
        shapes.json("payload"),
        shapes.json("channels"),
        shapes.moment("created_at"),
        shapes.moment("dispatched_at", nullable=True),
        shapes.id_column(),
        shapes.reference("team_id"),
        indexes=EVENT_INDEXES,
    )
    shapes.create_owned_table(
        "deliveries",
        shapes.reference("event_id"),
        shapes.string("channel", 16),
        shapes.reference("webhook_id", nullable=True),
        shapes.string("recipient", 320, nullable=True),
        shapes.reference("channel_id", nullable=True),
        shapes.string("state", 16),
        shapes.integer("attempts"),
        shapes.string("lease_owner", 128, nullable=True),
        *_optional(
            "moment next_attempt_at, moment lease_expires_at, moment last_attempt_at, "
            "integer status_code, integer duration_ms, text response_excerpt, text error, "
            "moment delivered_at"
        ),
        shapes.moment("created_at"),
        shapes.moment("updated_at"),
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.foreign_key("deliveries", "event_id", "delivery_events", ondelete="CASCADE"),
        shapes.foreign_key("deliveries", "webhook_id", "outgoing_webhooks", ondelete="CASCADE"),
        shapes.foreign_key("deliveries", "channel_id", "notification_channels", ondelete="CASCADE"),
        indexes=DELIVERY_INDEXES,
    )


def downgrade() -> None:
    shapes.drop_table("deliveries", *DELIVERY_INDEXES)
    shapes.drop_table("delivery_events", *EVENT_INDEXES)
    shapes.drop_table("notification_channels", "team_id")
    with op.batch_alter_table("incidents", table_kwargs={"sqlite_autoincrement": True}) as batch_op:
        for column in reversed(INCIDENT_COLUMNS):
            batch_op.drop_column(column.name)
    with op.batch_alter_table("outgoing_webhooks") as batch_op:
        for column in reversed(WEBHOOK_COLUMNS):
            batch_op.drop_column(column.name)
