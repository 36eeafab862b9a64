"""on-call calendars and their events"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0017"
down_revision = "0016"

CALENDAR_INDEXES: tuple[shapes.IndexKey, ...] = ("next_check_at", "team_id")
EVENT_INDEXES: tuple[shapes.IndexKey, ...] = (("calendar_id", "ends_at"), "team_id")


def upgrade() -> None:
    shapes.create_owned_table(
        "on_call_calendars",
        shapes.string("name", 255),
        shapes.reference("default_of_team_id", nullable=True),
        shapes.json("rotation", nullable=True),
        shapes.json("on_call_user_ids"),
        shapes.moment("next_check_at", nullable=True),
        *shapes.object_columns(),
        shapes.unique("on_call_calendars", "default_of_team_id"),
        indexes=CALENDAR_INDEXES,
    )
    shapes.create_owned_table(
        "on_call_events",
        shapes.reference("calendar_id"),
        shapes.json("users"),
        shapes.moment("starts_at"),
        shapes.moment("ends_at"),
        shapes.boolean("override"),
        *shapes.object_columns(),
        shapes.foreign_key(
            "on_call_events", "calendar_id", "on_call_calendars", ondelete="CASCADE"
        ),
        indexes=EVENT_INDEXES,
    )


def downgrade() -> None:
    shapes.drop_table("on_call_events", *EVENT_INDEXES)
    shapes.drop_table("on_call_calendars", *CALENDAR_INDEXES)
