"""A search as SQL: the WHERE and ORDER BY of both engines (DuckDB and ClickHouse).

Values never enter the SQL text: each is a placeholder (DuckDB's `$N`, clickhouse-connect's
`%(pN)s`, bound by the driver). Ids of sources are ints, written as numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from watchpost.logs.store import Field, Search, Term, Word

SEP = "\x1f"
"""Between the pairs of the embedded store's `pairs` column."""


def utc_naive(value: datetime) -> datetime:
    """An aware time as the naive UTC both engines store."""
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass
class Query:
    """SQL fragments and the values they bind, in order."""

    dialect: str  # "duckdb" or "clickhouse"
    params: list[Any] = field(default_factory=list)

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
        clause = self._word(term) if isinstance(term, Word) else self._field(term)
        return f"NOT ({clause})" if term.negated else f"({clause})"

    def _word(self, word: Word) -> str:
        text = word.text.lower()
        if self.dialect == "duckdb":
            # `pairs` holds every value lower-cased (the message among them): a word absent
            # there is absent, and the map is read only for the rows that have it.
            pattern = self.bind(f"%{like_escape(text)}%")
            return (
                f"contains(pairs, {self.bind(text)}) AND (body ILIKE {pattern} ESCAPE '\\' OR "
                f"len(list_filter(map_values(attributes), lambda v: v ILIKE {pattern} "
                "ESCAPE '\\')) > 0)"
            )
        needle = self.bind(text)
        return (
            f"positionCaseInsensitiveUTF8(body, {needle}) > 0 OR arrayExists("
            f"v -> positionCaseInsensitiveUTF8(v, {needle}) > 0, mapValues(attributes))"
        )

    def _field(self, term: Field) -> str:
        key = self.bind(term.path)
        value = term.value.lower()
        prefix = value.endswith("*")
        if self.dialect == "duckdb":
            stem = value[:-1] if prefix else f"{value}{SEP}"  # an equal value ends there
            hint = f"contains(pairs, {self.bind(f'{SEP}{term.path}={stem}'.lower())}) AND "
            if prefix:
                pattern = self.bind(f"{like_escape(value[:-1])}%")
                return f"{hint}coalesce(lower(attributes[{key}]) LIKE {pattern} ESCAPE '\\', false)"
            return f"{hint}coalesce(lower(attributes[{key}]) = {self.bind(value)}, false)"
        if prefix:
            return (
                f"mapContains(attributes, {key}) AND "
                f"startsWith(lowerUTF8(attributes[{key}]), {self.bind(value[:-1])})"
            )
        return (
            f"mapContains(attributes, {key}) AND lowerUTF8(attributes[{key}]) = {self.bind(value)}"
        )


def where(search: Search, dialect: str) -> tuple[str, Query]:
    """The WHERE clause of a search (without the word) and its query."""
    query = Query(dialect)
    ids = ", ".join(str(int(source_id)) for source_id in search.source_ids)
    clauses = [f"source_id IN ({ids})"]
    if search.since is not None:
        clauses.append(f"dt >= {query.moment(search.since)}")
    if search.until is not None:
        clauses.append(f"dt < {query.moment(search.until)}")
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


def order_by(search: Search) -> str:
    if search.after_id is not None:
        return "id ASC"
    return "dt DESC, id DESC" if search.newest_first else "dt ASC, id ASC"
