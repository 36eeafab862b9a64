"""escalation policies and their runs"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0016"
down_revision = "0015"

RUN_INDEXES: tuple[shapes.IndexKey, ...] = ("incident_id", "next_at", "team_id")


def upgrade() -> None:
    shapes.create_owned_table(
        "policies",
        shapes.string("name", 255),
        shapes.integer("repeat_count"),
        shapes.integer("repeat_delay"),
        shapes.string("incident_token", 64),
        shapes.reference("policy_group_id", nullable=True),
        shapes.reference("fallback_policy_id", nullable=True),
        shapes.json("steps"),
        *shapes.object_columns(),
        shapes.unique("policies", "incident_token"),
    )
    shapes.create_owned_table(
        "policy_runs",
        shapes.reference("incident_id"),
        shapes.reference("policy_id"),
        shapes.reference("event_id"),
        shapes.integer("step"),
        shapes.integer("round"),
        shapes.moment("next_at", nullable=True),
        shapes.json("told"),
        shapes.moment("created_at"),
        shapes.moment("updated_at"),
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.foreign_key("policy_runs", "incident_id", "incidents", ondelete="CASCADE"),
        shapes.foreign_key("policy_runs", "policy_id", "policies", ondelete="CASCADE"),
        shapes.foreign_key("policy_runs", "event_id", "delivery_events", ondelete="CASCADE"),
        indexes=RUN_INDEXES,
    )


def downgrade() -> None:
    shapes.drop_table("policy_runs", *RUN_INDEXES)
    shapes.drop_table("policies", "team_id")
