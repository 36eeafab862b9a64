"""escalation policies and their runs; the policy of monitors and heartbeats"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0016"
down_revision = "0015"

RUN_INDEXES: tuple[shapes.IndexKey, ...] = ("incident_id", "next_at", "team_id")
RUN_PARENTS = (
    ("incident_id", "incidents"),
    ("policy_id", "policies"),
    ("event_id", "delivery_events"),
)
"""A run goes with its incident, its policy and the event its steps send."""


CHECKED = ("monitors", "heartbeats")
"""Tables whose rows name the policy their incidents run (no foreign key: rebuilding these
SQLite tables to add one would cost their triggers; deleting a policy clears it)."""


def upgrade() -> None:
    for table in CHECKED:
        op.add_column(table, shapes.reference("policy_id", nullable=True))
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
        *(
            shapes.foreign_key("policy_runs", column, referred, ondelete="CASCADE")
            for column, referred in RUN_PARENTS
        ),
        indexes=RUN_INDEXES,
    )


def downgrade() -> None:
    shapes.drop_table("policy_runs", *RUN_INDEXES)
    shapes.drop_table("policies", "team_id")
    for table in CHECKED:
        # Plain ALTER TABLE … DROP COLUMN (SQLite ≥ 3.35): a batch rebuild would lose the
        # tables' row_counts triggers.
        op.drop_column(table, "policy_id")
