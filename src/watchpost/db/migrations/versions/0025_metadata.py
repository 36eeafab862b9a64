"""Metadata records (the hosted API's /api/v3/metadata), deleted with their owner"""

from __future__ import annotations

from alembic import op

from watchpost.db.migrations import shapes

revision = "0025"
down_revision = "0026"

TABLE = "metadata_records"
OWNERS = (("monitors", "Monitor"), ("heartbeats", "Heartbeat"), ("incidents", "Incident"))
"""The tables whose rows can own metadata, and the owner_type naming them."""


def _create_triggers(dialect: str) -> list[str]:
    statements = []
    for table, owner_type in OWNERS:
        forget = f"DELETE FROM {TABLE} WHERE owner_type = '{owner_type}' AND owner_id = OLD.id"  # noqa: S608
        name = f"forget_metadata_{table}"
        if dialect == "sqlite":
            statements.append(f"CREATE TRIGGER {name} AFTER DELETE ON {table} BEGIN {forget}; END")
        else:
            statements += [
                f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                f"{forget}; RETURN NULL; END $$",
                f"CREATE TRIGGER {name} AFTER DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {name}()",
            ]
    return statements


def _drop_triggers(dialect: str) -> list[str]:
    statements = []
    for table, _ in OWNERS:
        name = f"forget_metadata_{table}"
        if dialect == "sqlite":
            statements.append(f"DROP TRIGGER IF EXISTS {name}")
        else:
            statements += [
                f"DROP TRIGGER IF EXISTS {name} ON {table}",
                f"DROP FUNCTION IF EXISTS {name}()",
            ]
    return statements


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
    for statement in _create_triggers(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    for statement in _drop_triggers(op.get_bind().dialect.name):
        op.execute(statement)
    shapes.drop_table(TABLE, "team_id", ("owner_type", "owner_id"))
