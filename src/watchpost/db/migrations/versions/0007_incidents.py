"""incidents and the events of each"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0007"
down_revision = "0006"

INCIDENT_INDEXES: tuple[shapes.IndexKey, ...] = (
    ("collector_target_id", "resolved_at"),
    ("heartbeat_id", "resolved_at"),
    ("monitor_id", "resolved_at"),
    "team_id",
    ("team_id", "id"),
)


def upgrade() -> None:
    shapes.create_team_table(
        "incidents",
        shapes.string("name", 255),
        shapes.text("cause"),
        shapes.reference("monitor_id", nullable=True),
        shapes.reference("heartbeat_id", nullable=True),
        shapes.reference("collector_target_id", nullable=True),
        shapes.boolean("manual"),
        shapes.json("metadata"),
        shapes.moment("started_at"),
        shapes.moment("acknowledged_at", nullable=True),
        shapes.string("acknowledged_by", 320, nullable=True),
        shapes.moment("resolved_at", nullable=True),
        shapes.string("resolved_by", 320, nullable=True),
        *shapes.object_columns(),
        shapes.foreign_key(
            "incidents", "collector_target_id", "collector_targets", ondelete="SET NULL"
        ),
        shapes.foreign_key("incidents", "heartbeat_id", "heartbeats", ondelete="SET NULL"),
        shapes.foreign_key("incidents", "monitor_id", "monitors", ondelete="SET NULL"),
        indexes=INCIDENT_INDEXES,
    )

    op.create_table(
        "incident_events",
        shapes.reference("incident_id"),
        shapes.moment("at"),
        shapes.string("kind", 32),
        shapes.text("text"),
        shapes.string("by", 320, nullable=True),
        shapes.id_column(),
        shapes.foreign_key("incident_events", "incident_id", "incidents", ondelete="CASCADE"),
        shapes.primary_key("incident_events"),
    )
    shapes.create_indexes("incident_events", "incident_id")


def downgrade() -> None:
    shapes.drop_table("incident_events", "incident_id")
    shapes.drop_table("incidents", *INCIDENT_INDEXES)
