"""A team's SQL made safe to run on the shared ClickHouse store.

The query is parsed (sqlglot's ClickHouse dialect) and accepted only if it is one read query
(SELECT, UNION/INTERSECT/EXCEPT, WITH) whose every table is one of the team's, named as the
hosted service names them, or a CTE of the query:

    tN_<source>_logs  (or remote(tN_<source>_logs))    the source's events
    tN_<source>_s3    (or s3Cluster(primary, …_s3))    historical events: empty here, every event
                                                       is in _logs (the hosted examples UNION both)
    tN_<source>_metrics (or remote(…_metrics))         the source's metric samples

Each is replaced by a subquery of the store's table filtered on the source's id. Anything
else is refused: a database-qualified name (another team's data, system tables other than
system.one and system.settings), any other table function (url, file, s3, mysql… and remote
of anything else), `IN table` (a table read without FROM), dictionary and join-table lookups,
and a SETTINGS clause. The rewritten query ends in our own SETTINGS: readonly = 1 (no writes,
no DDL, no table functions, no settings changed after it) and limits on time, rows and bytes.
It runs with an empty database as the current one, so a name that slipped through as a CTE
out of its scope names nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from watchpost.logsearch import sql_catalog as catalog

MAX_EXECUTION_S: Final = 30
MAX_RESULT_ROWS: Final = 1_000_000
MAX_RESULT_BYTES: Final = 64 * 1024 * 1024

BINARY_FORMATS: Final = (
    "Native",
    "RowBinary",
    "RowBinaryWithNames",
    "RowBinaryWithNamesAndTypes",
    "Parquet",
    "Arrow",
    "ArrowStream",
)
"""The output formats whose answer is bytes (application/octet-stream), not text."""

OUTPUT_FORMATS: Final = {
    name.lower(): name
    for name in (
        "TabSeparated",
        "TSV",
        "TabSeparatedWithNames",
        "TSVWithNames",
        "TabSeparatedWithNamesAndTypes",
        "TSVWithNamesAndTypes",
        "TabSeparatedRaw",
        "TSVRaw",
        "CSV",
        "CSVWithNames",
        "CSVWithNamesAndTypes",
        "JSON",
        "JSONCompact",
        "JSONEachRow",
        "JSONCompactEachRow",
        "JSONCompactEachRowWithNamesAndTypes",
        "JSONStrings",
        "JSONLines",
        "NDJSON",
        "Pretty",
        "PrettyCompact",
        "PrettyCompactMonoBlock",
        "PrettySpace",
        "PrettyNoEscapes",
        "Vertical",
        "Values",
        *BINARY_FORMATS,
        "Markdown",
        "XML",
    )
}

ALLOWED_SYSTEM_TABLES: Final = frozenset({"one", "settings"})
"""System tables that hold no team's data; ClickHouse clients read them on connecting."""

_READ_ROOTS: Final = (exp.Select, exp.SetOperation, exp.Subquery)
_TABLE_FUNCTIONS: Final = {
    "remote": 0,
    "remotesecure": 0,
    "cluster": 1,
    "clusterallreplicas": 1,
    "s3cluster": 1,
}
"""Table functions the hosted examples wrap a table name in: the position of that name."""
_REFUSED_FUNCTION_PREFIXES: Final = ("dict", "joinget", "getmacro", "getsetting", "file", "url")


class SqlRefused(ValueError):
    """A query that is not run; `code`/`name` are ClickHouse's for the closest error."""

    def __init__(self, message: str, code: int = 497, name: str = "ACCESS_DENIED") -> None:
        super().__init__(message)
        self.code = code
        self.name = name


def _syntax(message: str) -> SqlRefused:
    return SqlRefused(message, 62, "SYNTAX_ERROR")


def rewrite(sql: str, tables: Mapping[str, str]) -> tuple[str, str | None]:
    """(the query to run, its FORMAT if it named one). `tables`: each table name the team may
    read → the SELECT that stands for it."""
    try:
        return _rewrite(sql, tables)
    except RecursionError:
        raise _syntax("The query nests too deeply") from None


def _rewrite(sql: str, tables: Mapping[str, str]) -> tuple[str, str | None]:
    sql = catalog.statement(sql, list(tables)) or sql  # SHOW / DESC: a SELECT of the catalog
    try:
        statements = [s for s in sqlglot.parse(sql, read="clickhouse") if s is not None]
    except SqlglotError as error:
        raise _syntax(f"Syntax error: {str(error).splitlines()[0][:300]}") from None
    if len(statements) != 1:
        raise _syntax("Send exactly one query")
    root = statements[0]
    if not isinstance(root, _READ_ROOTS):
        raise SqlRefused(
            "Only SELECT queries are allowed (the SQL endpoint is read-only)", 164, "READONLY"
        )
    fmt = root.args.get("format")
    output = _output_format(fmt) if fmt is not None else None
    root.set("format", None)
    if root.args.get("settings"):
        raise SqlRefused("SETTINGS cannot be sent to this endpoint")
    ctes = {cte.alias_or_name for cte in root.find_all(exp.CTE)}
    for node in list(root.walk()):
        if isinstance(node, exp.Table):
            _replace_table(node, tables, ctes)
        elif isinstance(node, exp.In) and node.args.get("field") is not None:
            raise SqlRefused("IN <table> is not allowed; write IN (SELECT …)")
        elif isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name.startswith(_REFUSED_FUNCTION_PREFIXES):
                raise SqlRefused(f"Function {name} is not allowed")
        elif isinstance(node, (exp.DDL, exp.DML, exp.Command, exp.Set, exp.Use)):
            raise SqlRefused("Only SELECT queries are allowed", 164, "READONLY")
    root.set(
        "settings",
        [
            exp.EQ(
                this=exp.column(name),
                expression=exp.Literal.number(value)
                if isinstance(value, int)
                else exp.Literal.string(value),
            )
            for name, value in (
                ("max_execution_time", MAX_EXECUTION_S),
                ("max_result_rows", MAX_RESULT_ROWS),
                ("max_result_bytes", MAX_RESULT_BYTES),
                ("result_overflow_mode", "throw"),
                ("readonly", 1),
            )
        ],
    )
    return root.sql(dialect="clickhouse"), output


def _output_format(fmt: object) -> str:
    text = fmt.name if isinstance(fmt, exp.Expression) else str(fmt)
    chosen = OUTPUT_FORMATS.get(text.strip().lower())
    if chosen is None:
        raise SqlRefused(f"Unknown or unsupported output format {text[:50]}", 73, "UNKNOWN_FORMAT")
    return chosen


def output_format(name: str | None) -> str:
    """A `default_format` parameter's format; TabSeparated when none."""
    return _output_format(name) if name else "TabSeparated"


def _table_name(node: exp.Table) -> str:
    """The name a table function wraps (remote(t1_app_logs)), else the table's own name."""
    function = node.this
    if isinstance(function, exp.Func):
        name = function.name if isinstance(function, exp.Anonymous) else function.sql_name()
        position = _TABLE_FUNCTIONS.get(name.lower())
        arguments = (
            function.expressions
            if isinstance(function, exp.Anonymous)
            else [function.this, *function.expressions]
        )
        if position is None or position >= len(arguments):
            raise SqlRefused(f"Table function {name} is not allowed")
        argument = arguments[position]
        if isinstance(argument, exp.Literal | exp.Column | exp.Identifier | exp.Table):
            return argument.name
        raise SqlRefused(f"{name}() must name one of your tables")
    if node.args.get("catalog") is not None:
        raise SqlRefused(f"Table {node.sql('clickhouse')} is not one of yours")
    if node.args.get("db") is not None:
        if node.db.lower() == "system" and node.name.lower() in ALLOWED_SYSTEM_TABLES:
            return ""
        if node.db.lower() == "system" and node.name.lower() in catalog.SYSTEM_TABLES:
            return f"system.{node.name.lower()}"
        if node.db == catalog.DATABASE:
            return node.name
        raise SqlRefused(
            f"Table {node.sql('clickhouse')} is not one of yours: name your tables without a "
            "database, like t1_source_logs"
        )
    return node.name


def _replace_table(node: exp.Table, tables: Mapping[str, str], ctes: set[str]) -> None:
    function = isinstance(node.this, exp.Func)
    name = _table_name(node)
    if not name:
        return  # an allowed system table
    if not function and name in ctes:
        return
    if name.startswith("system."):  # the team's own catalog (sql_catalog.py)
        select: str | None = catalog.system_table(name.removeprefix("system."), list(tables))
    else:
        select = tables.get(name)
    if select is None:
        raise SqlRefused(
            f"Table {name} is not one of yours (your tables are tN_<source>_logs, _s3 and "
            "_metrics, as `table_name` of /api/v1/sources shows them, with the suffix)",
            60,
            "UNKNOWN_TABLE",
        )
    alias = node.alias or name.removeprefix("system.")
    replacement = exp.Subquery(
        this=sqlglot.parse_one(select, read="clickhouse"),
        alias=exp.TableAlias(this=exp.to_identifier(alias)),
    )
    node.replace(replacement)
