"""Metadata records (the hosted API's /api/v3/metadata), deleted with their owner"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0025"
down_revision = "0026"

TABLE = "metadata_records"
OWNERS = (("monitors", "Monitor"), ("heartbeats", "Heartbeat"), ("incidents", "Incident"))
"""The tables whose rows can own metadata, and the owner_type naming them."""


def upgrade() -> None:
    op.create_table(
        TABLE,
        shapes.string("owner_type", 32),
        shapes.reference("owner_id"),
        shapes.string("key", 255),
        shapes.json("values"),
        *shapes.object_columns(),
        shapes.team_foreign_key(TABLE),
        shapes.primary_key(TABLE),
        shapes.unique(TABLE, "team_id", "owner_type", "owner_id", "key"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes(TABLE, "team_id", ("owner_type", "owner_id"))
    for statement in shapes.owner_triggers(op.get_bind().dialect.name, TABLE, OWNERS):
        op.execute(statement)


def downgrade() -> None:
    for statement in shapes.drop_owner_triggers(op.get_bind().dialect.name, OWNERS):
        op.execute(statement)
    shapes.drop_table(TABLE, "team_id", ("owner_type", "owner_id"))
