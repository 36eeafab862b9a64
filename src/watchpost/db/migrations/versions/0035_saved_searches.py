"""Saved log searches: a team's named searches of the console's log explorer (the query,
the source, the time range), listed on /logs

One row a search, unique by name within the team; the rows go with their team.
"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0035"
down_revision = "0034"

TABLE = "saved_searches"


def upgrade() -> None:
    shapes.create_owned_table(
        TABLE,
        shapes.reference("team_id"),
        shapes.id_column(),
        shapes.string("name", 255),
        shapes.text("query"),
        shapes.string("source", 40),
        shapes.string("time_range", 16),
        shapes.string("range_from", 40),
        shapes.string("range_to", 40),
        shapes.reference("created_by_id", nullable=True),
        shapes.moment("created_at"),
        shapes.unique(TABLE, "team_id", "name"),
        indexes=(),
    )


def downgrade() -> None:
    op.drop_table(TABLE)
