"""Ids are never reused, on either backend: a client (or a Terraform state) still holding the
id of a deleted object must never reach a newer one through it.

SQLite without AUTOINCREMENT hands out max(id) + 1, so deleting the newest object gave its
id to the next one. Migration 0014 rebuilt every table with an integer id; the migration test
builds a database at the revision before it, with rows, and checks what the rebuild keeps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Integer, Table
from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateTable

from tests.conftest import Backend
from tests.factories.api import Api, data
from tests.factories.objects import OBJECTS
from watchpost.db.migrate import alembic_config
from watchpost.db.registry import all_metadata

BEFORE = "0013"
AFTER = "0014"  # the revision under test (later ones add tables and columns)
"""The revision before ids stopped being reused."""


def _id_of(url: str) -> int:
    return int(url.rsplit("/", 1)[1])


# ------------------------------------------------------------------------- through the API


@pytest.mark.parametrize("route", sorted(r for r, kind in OBJECTS.items() if kind.deletable))
async def test_deleting_the_newest_object_never_frees_its_id(api: Api, route: str) -> None:
    kind = OBJECTS[route]
    first = await kind.create(api)
    assert (await api.delete(first)).status_code == 204, first
    second = await kind.create(api)
    assert _id_of(second) > _id_of(first), (route, first, second)
    assert (await api.get(first)).status_code == 404


async def test_timeline_items_and_webhook_templates_get_new_ids(api: Api) -> None:
    """Rows deleted by cascade (an incident's timeline, a webhook's template) free no id."""
    incident = await OBJECTS["/api/v2/incidents/{incident_id}"].create(api)
    old_item = (await api.get(f"{incident}/timeline")).json()["data"][-1]["id"]
    assert (await api.delete(incident)).status_code == 204
    incident = await OBJECTS["/api/v2/incidents/{incident_id}"].create(api)
    new_item = (await api.get(f"{incident}/timeline")).json()["data"][0]["id"]
    assert int(new_item) > int(old_item)

    body = {
        "url": "https://hooks.example.com/a",
        "trigger_type": "incident_change",
        "custom_webhook_template_attributes": {"http_method": "post"},
    }
    templates = []
    for _ in range(2):
        created = await api.post("/api/v2/outgoing-webhooks", body)
        assert created.status_code == 201, created.text
        document = created.json()
        templates.append(
            int(document["data"]["relationships"]["custom_webhook_template"]["data"]["id"])
        )
        assert (
            await api.delete(f"/api/v2/outgoing-webhooks/{document['data']['id']}")
        ).status_code == 204
    assert templates[1] > templates[0]


async def test_request_header_ids_are_never_reused(api: Api) -> None:
    headers = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    monitor = data(
        await api.post(
            "/api/v2/monitors", {"url": "https://example.com", "request_headers": headers}
        ),
        201,
    )
    path = f"/api/v2/monitors/{monitor['id']}"
    first, newest = (h["id"] for h in monitor["attributes"]["request_headers"])
    kept = [{"id": first, "name": "A", "value": "1"}]
    data(await api.patch(path, {"request_headers": kept}))
    again = data(await api.patch(path, {"request_headers": [*kept, {"name": "C", "value": "3"}]}))
    ids = [h["id"] for h in again["attributes"]["request_headers"]]
    assert ids[0] == first and int(ids[1]) > int(newest)


# ----------------------------------------------------------------------------- the schema


def _integer_id_tables() -> list[Table]:
    return [
        table
        for table in all_metadata().sorted_tables
        if [column.name for column in table.primary_key.columns] == ["id"]
        and isinstance(table.c.id.type.dialect_impl(sqlite.dialect()), Integer)
    ]


def test_every_model_with_an_integer_id_autoincrements_on_sqlite() -> None:
    """New tables get it too: the models and the migrated schema say the same."""
    tables = _integer_id_tables()
    assert len(tables) >= 20
    for table in tables:
        ddl = str(CreateTable(table).compile(dialect=sqlite.dialect()))
        assert "PRIMARY KEY AUTOINCREMENT" in ddl, table.name


def test_the_migrated_sqlite_schema_autoincrements_every_integer_id(
    sqlite_backend: Backend,
) -> None:
    assert sqlite_backend.template is not None
    with _connect(sqlite_backend.template) as conn:
        for table in _integer_id_tables():
            (sql,) = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table.name,)
            ).fetchone()
            assert "AUTOINCREMENT" in sql, table.name


# -------------------------------------------------------------------------- the migration


class _Db:
    """A SQLite file reached through sqlite3 (no app: the schema is an older revision's)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.url = f"sqlite:///{path}"

    def upgrade(self, revision: str) -> None:
        command.upgrade(alembic_config(self.url), revision)

    def downgrade(self, revision: str) -> None:
        command.downgrade(alembic_config(self.url), revision)


@contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(path, isolation_level=None)  # autocommit: each statement commits
    try:
        yield conn
    finally:
        conn.close()


def _id_tables(conn: sqlite3.Connection) -> list[str]:
    """Tables whose primary key is one INTEGER `id`, parents before children."""
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name != 'alembic_version' ORDER BY name"
        )
    ]
    with_id = []
    for name in names:
        pk = [row for row in conn.execute(f'PRAGMA table_info("{name}")') if row[5]]
        if len(pk) == 1 and pk[0][1] == "id" and pk[0][2].upper() == "INTEGER":
            with_id.append(name)
    parents = {
        name: {row[2] for row in conn.execute(f'PRAGMA foreign_key_list("{name}")')}
        & set(with_id) - {name}
        for name in with_id
    }
    ordered: list[str] = []
    while len(ordered) < len(with_id):
        ready = [n for n in with_id if n not in ordered and parents[n] <= set(ordered)]
        assert ready, "a cycle of references"
        ordered += ready
    return ordered


def _value(table: str, column: str, declared: str, n: int) -> Any:
    kind = declared.upper()
    if "INT" in kind:
        return n
    if "BOOL" in kind:
        return 0
    if kind in ("FLOAT", "REAL") or "NUMERIC" in kind:
        return 0.5
    if "DATETIME" in kind:
        return f"2026-11-0{n} 10:00:00.000000"
    if "JSON" in kind:
        return "[]" if column != "metadata" else "{}"
    return f"{table}-{column}-{n}"


def _insert(conn: sqlite3.Connection, table: str, n: int) -> int:
    """Row n of table: every NOT NULL column filled, references to row n of their table.
    (Table and column names come from the schema itself.)"""
    references = {row[3]: row[2] for row in conn.execute(f'PRAGMA foreign_key_list("{table}")')}
    values: dict[str, Any] = {}
    for _, column, declared, not_null, default, is_pk in conn.execute(
        f'PRAGMA table_info("{table}")'
    ):
        if is_pk:
            continue
        if column in references:
            values[column] = n
        elif not_null and default is None:
            values[column] = _value(table, column, declared, n)
    names = ", ".join(f'"{name}"' for name in values)
    marks = ", ".join("?" for _ in values)
    cursor = conn.execute(
        f'INSERT INTO "{table}" ({names}) VALUES ({marks})',  # noqa: S608
        list(values.values()),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _dump(conn: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name != 'alembic_version'"
        )
    ]
    return {
        name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)  # noqa: S608
        for name in names
    }


def _objects(conn: sqlite3.Connection, kind: str) -> set[tuple[str, str]]:
    return {
        (name, table)
        for name, table in conn.execute(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'",
            (kind,),
        )
    }


@pytest.fixture
def old_database(tmp_path: Path) -> Iterator[_Db]:
    db = _Db(tmp_path / "old.db")
    db.upgrade(BEFORE)
    yield db


def test_the_migration_keeps_rows_indexes_triggers_and_counts(old_database: _Db) -> None:
    with _connect(old_database.path) as conn:
        tables = _id_tables(conn)
        assert {"teams", "monitors", "heartbeats", "sources", "incidents"} <= set(tables)
        for n in (1, 2, 3):
            for table in tables:
                assert _insert(conn, table, n) == n
        conn.execute("DELETE FROM monitor_groups WHERE id = 3")  # before: 3 would come back
        assert _insert(conn, "monitor_groups", 3) == 3
        rows, indexes, triggers = _dump(conn), _objects(conn, "index"), _objects(conn, "trigger")
        counts = rows["row_counts"]
        assert {row[0] for row in counts} == {"sources", "monitors", "heartbeats"}
        assert sorted(row[1:3] for row in counts) == [(1, 1)] * 3 + [(2, 1)] * 3 + [(3, 1)] * 3
    assert {name for name, _ in triggers} >= {
        "row_counts_sources_insert",
        "row_counts_monitors_delete",
        "row_counts_heartbeats_insert",
    }

    old_database.upgrade(AFTER)

    with _connect(old_database.path) as conn:
        assert _dump(conn) == rows
        assert _objects(conn, "index") == indexes
        assert _objects(conn, "trigger") == triggers
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        sequences = dict(conn.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
        assert sequences == dict.fromkeys(tables, 3)
        for table in tables:
            conn.execute(f'DELETE FROM "{table}" WHERE id = 3')  # noqa: S608 (the newest)
            assert _insert(conn, table, 4) == 4, table  # ids are no longer reused
        # the row_counts triggers still count: team 3's monitor deleted, team 4's added
        assert _monitors_counted(conn, 3) == 0
        assert _monitors_counted(conn, 4) == 1
        conn.execute("DELETE FROM monitors WHERE id = 4")
        assert _monitors_counted(conn, 4) == 0
        # foreign keys still act (the app turns them on): deleting a team cascades
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("DELETE FROM teams WHERE id = 1")
        assert conn.execute("SELECT count(*) FROM monitors WHERE team_id = 1").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM row_counts WHERE team_id = 1").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM monitors").fetchone() == (1,)


def _monitors_counted(conn: sqlite3.Connection, team_id: int) -> int:
    row = conn.execute(
        "SELECT row_count FROM row_counts WHERE table_name = 'monitors' AND team_id = ?",
        (team_id,),
    ).fetchone()
    return int(row[0])


def test_the_migration_goes_back_down_keeping_rows(old_database: _Db) -> None:
    with _connect(old_database.path) as conn:
        tables = _id_tables(conn)
        for table in tables:
            _insert(conn, table, 1)
        rows = _dump(conn)
    old_database.upgrade("heads")
    old_database.downgrade(BEFORE)
    with _connect(old_database.path) as conn:
        assert _dump(conn) == rows
        for table in tables:
            (sql,) = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
            ).fetchone()
            assert "AUTOINCREMENT" not in sql, table
        assert len(_objects(conn, "trigger")) == 6
