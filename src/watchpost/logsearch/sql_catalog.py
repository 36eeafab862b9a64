# ruff: noqa: S608  (the literals in the SQL text are written by sqlglot)
"""What a team's SQL may learn of its own tables, in ClickHouse's words.

Grafana's ClickHouse plugin fills its query builder with `SHOW DATABASES`, `SHOW TABLES
FROM "default"`, `DESC TABLE "default"."t1_app_logs"` and `SELECT name, type, table FROM
system.columns WHERE …`. The team sees one database, `default`, holding its tables and
nothing else: each statement becomes a SELECT over system.one with the team's names in the
query text (as literals written by sqlglot), run like any other query (sql_rewrite.py); the
system tables `databases`, `tables` and `columns` become such SELECTs where a query names them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from sqlglot import exp

DATABASE: Final = "default"
"""The one database a team sees; `default.<table>` names its table <table>."""

_TIME: Final = "DateTime64(6, 'UTC')"
_TAGS: Final = "Map(LowCardinality(String), String)"
EVENT_COLUMNS: Final = (
    ("id", "UInt64", "id"),
    ("source_id", "UInt32", "source_id"),
    ("dt", _TIME, "dt"),
    ("level", "LowCardinality(String)", "severity"),
    ("service", "LowCardinality(String)", "service"),
    ("message", "String", "body"),
    ("attributes", _TAGS, "attributes"),
    ("raw", "String", "raw"),
    ("json", "String", "raw"),
    ("_row_type", "UInt8", "1"),
)
"""A source's `_logs` and `_s3` tables: (name, type, the store's expression)."""
METRIC_COLUMNS: Final = (
    ("source_id", "UInt32", "source_id"),
    ("dt", _TIME, "dt"),
    ("name", "LowCardinality(String)", "name"),
    ("value", "Float64", "value"),
    ("tags", _TAGS, "tags"),
)
"""A source's `_metrics` table."""

SYSTEM_TABLES: Final = frozenset({"databases", "tables", "columns"})

_NAME = r'(?:"([^"]+)"|`([^`]+)`|([A-Za-z_][A-Za-z0-9_]*))'
_FORMAT = r"(?:\s+FORMAT\s+([A-Za-z]+))?\s*;?\s*$"
_SHOW_DATABASES = re.compile(r"^\s*SHOW\s+DATABASES" + _FORMAT, re.IGNORECASE)
_SHOW_TABLES = re.compile(
    r"^\s*SHOW\s+TABLES(?:\s+(?:FROM|IN)\s+" + _NAME + ")?" + _FORMAT, re.IGNORECASE
)
_DESCRIBE = re.compile(
    r"^\s*DESC(?:RIBE)?\s+(?:TABLE\s+)?(?:" + _NAME + r"\s*\.\s*)?" + _NAME + _FORMAT,
    re.IGNORECASE,
)


def columns_of(table: str) -> Sequence[tuple[str, str, str]]:
    return METRIC_COLUMNS if table.endswith("_metrics") else EVENT_COLUMNS


def _text(value: str | int) -> str:
    literal = exp.Literal.number(value) if isinstance(value, int) else exp.Literal.string(value)
    return literal.sql(dialect="clickhouse")


def _rows(names: Sequence[str], types: Sequence[str], rows: Iterable[Sequence[str | int]]) -> str:
    """SELECT of literal rows, one column per name (none: no row, the same columns)."""
    tuples = [f"tuple({', '.join(_text(v) for v in row)})" for row in rows]
    kinds = ", ".join(types)
    array = f"CAST([{', '.join(tuples)}], {_text(f'Array(Tuple({kinds}))')})"
    fields = ", ".join(f"tupleElement(row, {i + 1}) AS {n}" for i, n in enumerate(names))
    return f"SELECT {fields} FROM system.one ARRAY JOIN {array} AS row"


def _name(groups: Sequence[str | None]) -> str | None:
    return next((g for g in groups if g is not None), None)


def statement(sql: str, tables: Sequence[str]) -> str | None:
    """The SELECT standing for a SHOW DATABASES / SHOW TABLES / DESC statement (its FORMAT
    kept), None for any other query."""
    found = _SHOW_DATABASES.match(sql)
    if found:
        return _formatted(_rows(["name"], ["String"], [(DATABASE,)]), found.group(1))
    found = _SHOW_TABLES.match(sql)
    if found:
        database = _name(found.groups()[:3])
        names = tables if database in (None, DATABASE) else []
        return _formatted(_rows(["name"], ["String"], [(n,) for n in sorted(names)]), found[4])
    found = _DESCRIBE.match(sql)
    if found:
        database, table = _name(found.groups()[:3]), _name(found.groups()[3:6]) or ""
        if table not in tables or database not in (None, DATABASE):
            # refused as a query of it would be: not one of the team's tables
            named = exp.table_(table, db=database).sql(dialect="clickhouse")
            return f"SELECT * FROM {named} LIMIT 0"
        rows = [(name, kind, "", "", "", "", "") for name, kind, _ in columns_of(table)]
        names = ["name", "type", "default_type", "default_expression", "comment"]
        names += ["codec_expression", "ttl_expression"]
        return _formatted(_rows(names, ["String"] * 7, rows), found[7])
    return None


def _formatted(select: str, fmt: str | None) -> str:
    return f"{select} FORMAT {fmt}" if fmt else select


def system_table(name: str, tables: Sequence[str]) -> str:
    """The SELECT standing for system.databases, system.tables or system.columns."""
    if name == "databases":
        return _rows(["name", "engine", "comment"], ["String"] * 3, [(DATABASE, "Atomic", "")])
    if name == "tables":
        names = ["database", "name", "engine", "is_temporary", "comment"]
        types = ["String", "String", "String", "UInt8", "String"]
        rows = [(DATABASE, table, "View", 0, "") for table in sorted(tables)]
        return _rows(names, types, rows)
    names = ["database", "table", "name", "type", "position", "default_kind", "comment"]
    types = ["String", "String", "String", "String", "UInt64", "String", "String"]
    column_rows = [
        (DATABASE, table, column, kind, position, "", "")
        for table in sorted(tables)
        for position, (column, kind, _) in enumerate(columns_of(table), start=1)
    ]
    return _rows(names, types, column_rows)
