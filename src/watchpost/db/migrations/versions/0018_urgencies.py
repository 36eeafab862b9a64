"""urgencies (severities), urgency groups and policy groups"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0018"
down_revision = "0017"

WAYS = ("sms", "call", "email", "push", "critical_alert")
GROUPS = ("urgency_groups", "policy_groups")
"""Plain groups: a name and a position. What names one (urgencies.urgency_group_id,
policies.policy_group_id) has no foreign key: deleting a group clears it."""


def upgrade() -> None:
    for table in GROUPS:
        shapes.create_owned_table(
            table,
            shapes.string("name", 255),
            shapes.integer("sort_index", nullable=True),
            *shapes.object_columns(),
        )
    shapes.create_owned_table(
        "urgencies",
        shapes.string("name", 255),
        *(shapes.boolean(way) for way in WAYS),
        shapes.reference("urgency_group_id", nullable=True),
        *shapes.object_columns(),
    )


def downgrade() -> None:
    shapes.drop_table("urgencies", "team_id")
    for table in reversed(GROUPS):
        shapes.drop_table(table, "team_id")
