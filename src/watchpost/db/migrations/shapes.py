"""The shapes Watchpost's migrations build their tables from.

Columns by type, the columns many tables share (an object's id, team, timestamps, maintenance
window and notification settings), constraints and indexes named the way the naming convention
of `watchpost.db.base` names them, tables of teams' rows, and the triggers that keep
`row_counts`.

**Frozen.** A migration must build the same schema whenever it runs, years later as on the
day it was written, on SQLite as on PostgreSQL. So nothing here ever changes what it
produces: not a type, a length, a nullability, an order or a name. A table that needs
another shape gets a new function; the migrations that use the old one keep using it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from watchpost.db.base import UTCDateTime

# ----------------------------------------------------------------------------- columns


def string(name: str, length: int, *, nullable: bool = False) -> sa.Column[str]:
    return sa.Column(name, sa.String(length=length), nullable=nullable)


def text(name: str, *, nullable: bool = False) -> sa.Column[str]:
    return sa.Column(name, sa.Text(), nullable=nullable)


def integer(name: str, *, nullable: bool = False) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=nullable)


def floating(name: str, *, nullable: bool = False) -> sa.Column[float]:
    return sa.Column(name, sa.Float(), nullable=nullable)


def boolean(name: str, *, nullable: bool = False) -> sa.Column[bool]:
    return sa.Column(name, sa.Boolean(), nullable=nullable)


def json(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.JSON(), nullable=nullable)


def id_type() -> sa.types.TypeEngine[int]:
    """BIGINT on PostgreSQL; INTEGER on SQLite, where only that makes the rowid alias."""
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def id_column() -> sa.Column[int]:
    """The integer primary key `id`."""
    return sa.Column("id", id_type(), autoincrement=True, nullable=False)


def reference(name: str, *, nullable: bool = False) -> sa.Column[int]:
    """A column holding the id of another row."""
    return sa.Column(name, id_type(), nullable=nullable)


def moment(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    """A UTC timestamp."""
    return sa.Column(name, UTCDateTime(timezone=True), nullable=nullable)


def object_columns() -> list[sa.Column[Any]]:
    """What every team-owned API object ends with: id, team_id, created_at, updated_at."""
    return [
        id_column(),
        reference("team_id"),
        moment("created_at"),
        moment("updated_at"),
    ]


def maintenance_columns() -> list[sa.Column[Any]]:
    """A daily maintenance window (`policy.MaintenanceColumns`)."""
    return [
        string("maintenance_from", 8, nullable=True),
        string("maintenance_to", 8, nullable=True),
        string("maintenance_timezone", 64),
        json("maintenance_days"),
    ]


def notification_columns() -> list[sa.Column[Any]]:
    """How to alert the team (`policy.NotificationColumns`)."""
    return [
        *(boolean(name) for name in ("call", "sms", "email", "push")),
        integer("team_wait", nullable=True),
    ]


# ------------------------------------------------------------------------- constraints


def primary_key(table: str, *columns: str) -> sa.PrimaryKeyConstraint:
    """`pk_<table>` on columns, `id` when none are given."""
    return sa.PrimaryKeyConstraint(*(columns or ("id",)), name=op.f(f"pk_{table}"))


def foreign_key(
    table: str, column: str, referred: str, *, ondelete: str
) -> sa.ForeignKeyConstraint:
    """`fk_<table>_<column>_<referred>`: column holds an id of the referred table."""
    return sa.ForeignKeyConstraint(
        [column],
        [f"{referred}.id"],
        name=op.f(f"fk_{table}_{column}_{referred}"),
        ondelete=ondelete,
    )


def team_foreign_key(table: str) -> sa.ForeignKeyConstraint:
    """The row belongs to a team and goes with it."""
    return foreign_key(table, "team_id", "teams", ondelete="CASCADE")


def unique(table: str, *columns: str) -> sa.UniqueConstraint:
    """`uq_<table>_<columns>`."""
    return sa.UniqueConstraint(*columns, name=op.f(f"uq_{table}_{'_'.join(columns)}"))


# ----------------------------------------------------------------------------- indexes

IndexKey = str | tuple[str, ...]
"""The column, or the columns, of a non-unique index named `ix_<table>_<columns>`."""


def _columns(key: IndexKey) -> tuple[str, ...]:
    return (key,) if isinstance(key, str) else key


def _index_name(table: str, key: IndexKey) -> str:
    return f"ix_{table}_{'_'.join(_columns(key))}"


def create_indexes(table: str, *keys: IndexKey) -> None:
    """Non-unique indexes on table, created in the order given."""
    with op.batch_alter_table(table, schema=None) as batch_op:
        for key in keys:
            index = batch_op.f(_index_name(table, key))
            batch_op.create_index(index, list(_columns(key)), unique=False)


def drop_table(table: str, *index_keys: IndexKey) -> None:
    """Drops the indexes create_indexes made (given in the order they were created), then
    the table."""
    if index_keys:
        with op.batch_alter_table(table, schema=None) as batch_op:
            for key in reversed(index_keys):
                batch_op.drop_index(batch_op.f(_index_name(table, key)))
    op.drop_table(table)


# ------------------------------------------------------------------------------ tables


def create_team_table(
    table: str,
    *columns: sa.schema.SchemaItem,
    primary: tuple[str, ...] = ("id",),
    uniques: Sequence[IndexKey] = (),
    indexes: Sequence[IndexKey] = ("team_id",),
) -> None:
    """A table of teams' rows: columns (and foreign keys to other tables), then the foreign
    key to the team, the primary key, unique constraints on uniques and the indexes."""
    op.create_table(
        table,
        *columns,
        team_foreign_key(table),
        primary_key(table, *primary),
        *(unique(table, *_columns(key)) for key in uniques),
    )
    if indexes:
        create_indexes(table, *indexes)


def create_owned_table(
    table: str,
    *columns: sa.schema.SchemaItem,
    indexes: Sequence[IndexKey] = ("team_id",),
) -> None:
    """A table of teams' rows with an `id` never reused (AUTOINCREMENT on SQLite, as every
    table since 0014): columns (and foreign keys to other tables), then the foreign key to
    the team, the primary key and the indexes."""
    op.create_table(
        table,
        *columns,
        team_foreign_key(table),
        primary_key(table),
        sqlite_autoincrement=True,
    )
    if indexes:
        create_indexes(table, *indexes)


def create_group_table(table: str) -> None:
    """A pausable, ordered group of one team's objects (heartbeats, monitors)."""
    create_team_table(
        table, string("name", 255), integer("sort_index"), boolean("paused"), *object_columns()
    )


# ------------------------------------------------------------------ row_counts triggers

_SQLITE_START = "abs(random() % 1000000000000)"
_POSTGRES_START = "floor(random() * 1000000000000)::bigint"


def create_triggers(dialect: str, table: str) -> list[str]:
    """DDL that makes the database keep row_counts for table."""
    upsert = (
        "INSERT INTO row_counts (table_name, team_id, row_count, version) "
        "VALUES ('{table}', NEW.team_id, 1, {start}) "
        "ON CONFLICT (table_name, team_id) DO UPDATE "
        "SET row_count = row_counts.row_count + 1, version = row_counts.version + 1"
    )
    decrement = (
        "UPDATE row_counts SET row_count = row_count - 1, version = version + 1 "
        "WHERE table_name = '{table}' AND team_id = OLD.team_id"
    )
    if dialect == "sqlite":
        return [
            f"CREATE TRIGGER row_counts_{table}_insert AFTER INSERT ON {table} BEGIN "
            + upsert.format(table=table, start=_SQLITE_START)
            + "; END",
            f"CREATE TRIGGER row_counts_{table}_delete AFTER DELETE ON {table} BEGIN "
            + decrement.format(table=table)
            + "; END",
        ]
    function = f"row_counts_{table}"
    return [
        f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF TG_OP = 'INSERT' THEN "
        + upsert.format(table=table, start=_POSTGRES_START)
        + "; ELSE "
        + decrement.format(table=table)
        + "; END IF; RETURN NULL; END $$",
        f"CREATE TRIGGER row_counts_{table} AFTER INSERT OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {function}()",
    ]


def drop_triggers(dialect: str, table: str) -> list[str]:
    if dialect == "sqlite":
        return [
            f"DROP TRIGGER IF EXISTS row_counts_{table}_insert",
            f"DROP TRIGGER IF EXISTS row_counts_{table}_delete",
        ]
    return [
        f"DROP TRIGGER IF EXISTS row_counts_{table} ON {table}",
        f"DROP FUNCTION IF EXISTS row_counts_{table}()",
    ]


def backfill(table: str) -> str:
    """Counts for rows that existed before the triggers did."""
    # table is one of the names a migration lists, never input.
    select_counts = f"SELECT '{table}', team_id, count(*), 1 FROM {table} GROUP BY team_id"  # noqa: S608
    return "INSERT INTO row_counts (table_name, team_id, row_count, version) " + select_counts


def start_counting(tables: Iterable[str]) -> None:
    """Counts tables in row_counts: backfills their counts, then creates the triggers."""
    dialect = op.get_bind().dialect.name
    for table in tables:
        op.execute(backfill(table))
        for statement in create_triggers(dialect, table):
            op.execute(statement)


def stop_counting(tables: Iterable[str]) -> None:
    dialect = op.get_bind().dialect.name
    for table in tables:
        for statement in drop_triggers(dialect, table):
            op.execute(statement)
        op.execute(f"DELETE FROM row_counts WHERE table_name = '{table}'")  # noqa: S608


def owner_triggers(dialect: str, records: str, owners: Iterable[tuple[str, str]]) -> list[str]:
    """Triggers deleting the rows of `records` (owner_type, owner_id) whose owner is deleted:
    one per (table, owner_type) in owners, named forget_metadata_{table}."""
    statements = []
    for table, owner_type in owners:
        forget = f"DELETE FROM {records} WHERE owner_type = '{owner_type}' AND owner_id = OLD.id"  # noqa: S608
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


def drop_owner_triggers(dialect: str, owners: Iterable[tuple[str, str]]) -> list[str]:
    """The statements undoing owner_triggers."""
    statements = []
    for table, _ in owners:
        name = f"forget_metadata_{table}"
        if dialect == "sqlite":
            statements.append(f"DROP TRIGGER IF EXISTS {name}")
        else:
            statements += [
                f"DROP TRIGGER IF EXISTS {name} ON {table}",
                f"DROP FUNCTION IF EXISTS {name}()",
            ]
    return statements
