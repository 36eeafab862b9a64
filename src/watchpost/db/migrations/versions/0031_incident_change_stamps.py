"""Incidents' change stamps: a number the database sets on every insert and update of an
incident (status pages reuse the incidents they read while their stamps stay the same)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0031"
down_revision = "0030"

COLUMN = "change_stamp"
COUNTERS = "change_stamps"

# SQLite: one writer at a time, so one counter row serves every writer. It is made by the
# first write after the migration (or in a fresh copy of a database), starting at a random
# value as row_counts' versions do: a database emptied and filled again does not hand out
# the stamps it handed out before.
_STAMP = (
    "BEGIN "
    "INSERT INTO change_stamps (table_name, value) "
    "VALUES ('incidents', abs(random() % 1000000000000)) "
    "ON CONFLICT (table_name) DO UPDATE SET value = value + 1; "
    "UPDATE incidents SET change_stamp = "
    "(SELECT value FROM change_stamps WHERE table_name = 'incidents') "
    "WHERE id = NEW.id; END"
)
_SQLITE = [
    "CREATE TRIGGER incident_stamps_insert AFTER INSERT ON incidents " + _STAMP,
    # Not again for its own UPDATE, which changes the stamp.
    "CREATE TRIGGER incident_stamps_update AFTER UPDATE ON incidents "
    "WHEN NEW.change_stamp IS OLD.change_stamp " + _STAMP,
]
# PostgreSQL: the writing transaction's id (never handed out twice, never reset, and no row
# that concurrent writers would queue on, as a counter row would be); change_stamps stays
# empty there.
_POSTGRES = [
    "CREATE FUNCTION incident_stamps() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "NEW.change_stamp := txid_current(); RETURN NEW; END $$",
    "CREATE TRIGGER incident_stamps BEFORE INSERT OR UPDATE ON incidents "
    "FOR EACH ROW EXECUTE FUNCTION incident_stamps()",
]


def upgrade() -> None:
    # ADD COLUMN with a constant default: no table rebuild, no rewrite of the rows. The
    # incidents there are stamped 0 until they next change (any change then stamps them).
    op.add_column(
        "incidents",
        sa.Column(COLUMN, sa.BigInteger(), nullable=False, server_default=sa.text("0")),
    )
    op.create_table(
        COUNTERS,
        shapes.string("table_name", 63),
        sa.Column("value", sa.BigInteger(), nullable=False),
        shapes.primary_key(COUNTERS, "table_name"),
    )
    dialect = op.get_bind().dialect.name
    for statement in _SQLITE if dialect == "sqlite" else _POSTGRES:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS incident_stamps_insert")
        op.execute("DROP TRIGGER IF EXISTS incident_stamps_update")
    else:
        op.execute("DROP TRIGGER IF EXISTS incident_stamps ON incidents")
        op.execute("DROP FUNCTION IF EXISTS incident_stamps()")
    op.drop_table(COUNTERS)
    # plain ALTER TABLE … DROP COLUMN (SQLite ≥ 3.35): a rebuild would lose the triggers
    op.drop_column("incidents", COLUMN)
