"""A search as SQL: the WHERE and ORDER BY of both engines (DuckDB and ClickHouse).

Values never enter the SQL text: each is a placeholder (DuckDB's `$N`, clickhouse-connect's
`%(pN)s`, bound by the driver). Ids of sources are ints, written as numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from watchpost.logs.store import Field, MetricSearch, Search, Term, Word

SEP = "\x1f"
"""Between the values of the embedded store's `text` column."""


def utc_naive(value: datetime) -> datetime:
    """An aware time as the naive UTC both engines store."""
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass
class Query:
    """SQL fragments and the values they bind, in order.

    For DuckDB, `columns` names the day table's attribute columns (attribute path -> column):
    a field on one of them is an exact clause; on any other attribute, and for a word holding
    the separator, the clause only narrows the rows (a superset) and the term goes to `verify`,
    to be checked on each row found (logs/embedded.py).
    """

    dialect: str  # "duckdb" or "clickhouse"
    params: list[Any] = field(default_factory=list)
    columns: Mapping[str, str] = field(default_factory=dict)
    verify: list[Term] = field(default_factory=list)

    def bind(self, value: Any) -> str:
        self.params.append(value)
        if self.dialect == "duckdb":
            return f"${len(self.params)}"
        return f"%(p{len(self.params) - 1})s"

    def bound(self) -> list[Any] | dict[str, Any]:
        if self.dialect == "duckdb":
            return self.params
        return {f"p{i}": value for i, value in enumerate(self.params)}

    def moment(self, value: datetime) -> str:
        """A time: naive UTC for DuckDB, microseconds since the epoch for ClickHouse."""
        if self.dialect == "duckdb":
            return self.bind(utc_naive(value))
        micros = round(value.astimezone(UTC).timestamp() * 1_000_000) if value.tzinfo else None
        if micros is None:
            micros = round(value.replace(tzinfo=UTC).timestamp() * 1_000_000)
        return f"fromUnixTimestamp64Micro(toInt64({self.bind(micros)}), 'UTC')"

    def term(self, term: Term) -> str:
        if self.dialect == "duckdb":
            bound = len(self.params)
            clause, exact = self._duckdb(term)
            if not exact:
                self.verify.append(term)
                if term.negated:  # a narrowing clause cannot be negated: checked row by row
                    del self.params[bound:]
                    return "true"
                return f"({clause})"
        else:
            clause = self._word(term) if isinstance(term, Word) else self._field(term)
        return f"NOT ({clause})" if term.negated else f"({clause})"

    def _duckdb(self, term: Term) -> tuple[str, bool]:
        """The clause of a term on the embedded store, and whether it is exact."""
        if isinstance(term, Word):
            # `text` holds the message and every attribute value, lower-cased, each between
            # separators: a word (without a separator) is in it exactly when it is in one of them
            text = term.text.lower()
            return f"contains(text, {self.bind(text)})", SEP not in text
        value = term.value.lower()
        prefix = value.endswith("*")
        column = self.columns.get(term.path)
        if column is not None:
            # the column holds the values lower-cased by DuckDB: the term's value is too
            name = quote(column)
            if prefix:
                pattern = self.bind(f"{like_escape(term.value[:-1])}%")
                return f"coalesce({name} LIKE lower({pattern}) ESCAPE '\\', false)", True
            return f"coalesce({name} = lower({self.bind(term.value)}), false)", True
        # not a column of this day: the value stands whole (or begins) between separators
        needle = f"{SEP}{value[:-1]}" if prefix else f"{SEP}{value}{SEP}"
        return f"contains(text, {self.bind(needle)})", False

    def _word(self, word: Word) -> str:
        needle = self.bind(word.text.lower())
        return (
            f"positionCaseInsensitiveUTF8(body, {needle}) > 0 OR arrayExists("
            f"v -> positionCaseInsensitiveUTF8(v, {needle}) > 0, mapValues(attributes))"
        )

    def _field(self, term: Field) -> str:
        key = self.bind(term.path)
        value = term.value.lower()
        if value.endswith("*"):
            return (
                f"mapContains(attributes, {key}) AND "
                f"startsWith(lowerUTF8(attributes[{key}]), {self.bind(value[:-1])})"
            )
        return (
            f"mapContains(attributes, {key}) AND lowerUTF8(attributes[{key}]) = {self.bind(value)}"
        )


def quote(name: str) -> str:
    """A DuckDB identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def where(
    search: Search,
    dialect: str,
    columns: Mapping[str, str] | None = None,
    query: Query | None = None,
) -> tuple[str, Query]:
    """The WHERE clause of a search and its query (a new one, or `query`, whose parameters
    it goes on numbering; `columns`: the embedded day table's attribute columns)."""
    if query is None:
        query = Query(dialect)
    query.columns = columns or {}
    clauses = [_sources(search.source_ids), *_span(query, search.since, search.until)]
    if search.after_id is not None:
        clauses.append(f"id > {query.bind(int(search.after_id))}")
    elif search.before is not None:
        at, event_id = search.before
        op = "<" if search.newest_first else ">"
        clauses.append(
            f"(dt {op} {query.moment(at)} OR "
            f"(dt = {query.moment(at)} AND id {op} {query.bind(int(event_id))}))"
        )
    clauses.extend(query.term(term) for term in search.terms)
    return " AND ".join(clauses), query


def metric_where(search: MetricSearch, dialect: str) -> tuple[str, Query]:
    """The WHERE clause of a metric search and its query."""
    query = Query(dialect)
    clauses = [_sources(search.source_ids)]
    if search.name is not None:
        clauses.append(f"name = {query.bind(search.name)}")
    clauses += _span(query, search.since, search.until)
    return " AND ".join(clauses), query


def _sources(source_ids: Sequence[int]) -> str:
    ids = ", ".join(str(int(source_id)) for source_id in source_ids)
    return f"source_id IN ({ids})"


def _span(query: Query, since: datetime | None, until: datetime | None) -> list[str]:
    """The clauses of [since, until), either end open when None."""
    clauses = []
    if since is not None:
        clauses.append(f"dt >= {query.moment(since)}")
    if until is not None:
        clauses.append(f"dt < {query.moment(until)}")
    return clauses


def order_by(search: Search) -> str:
    if search.after_id is not None:
        return "id ASC"
    return "dt DESC, id DESC" if search.newest_first else "dt ASC, id ASC"
