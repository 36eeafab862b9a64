"""The columns a list renders, read as plain rows instead of ORM objects.

A list page renders up to 250 objects. Building them as ORM instances (identity map,
instance state, one descriptor call per attribute read) cost more than rendering them, and
lists never change what they read. `ListColumns` selects an ORM class's attributes as plain
columns, in the order a renderer unpacks them:

- timestamps come as the API's text, made by the database (`iso_ms`): cheaper than parsing
  and formatting two or more datetimes per row in Python;
- JSON comes as text parsed by orjson, several times faster than SQLAlchemy's `json.loads`.

`row(obj)` gives an ORM object (just created or changed) in the same shape, so one renderer
serves a list and a single object. `ResourceAttributes` is such a renderer declared as a table:
each attribute by name, a stored column or derived from columns, the select made from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import orjson
from sqlalchemy import JSON, ColumnElement, Select, String, inspect, select, type_coerce
from sqlalchemy.engine import Dialect

from watchpost.clock import isoformat_ms
from watchpost.db.base import Base, UTCDateTime, iso_ms


class _JsonText(String):
    """A JSON column read as its stored text and parsed by orjson, called by the driver's
    row building without a Python wrapper (SQLite). psycopg parses JSON itself (it knows
    the column's type) and hands over the value as it is."""

    def __init__(self, nullable: bool = True) -> None:
        super().__init__()
        self.nullable = nullable

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        if dialect.name == "postgresql":
            return None
        return _loads_or_none if self.nullable else orjson.loads


def _loads_or_none(value: str | None) -> Any:
    return None if value is None else orjson.loads(value)


def _plain(value: Any) -> Any:
    return value


def _timestamp(value: Any) -> str | None:
    return None if value is None else isoformat_ms(value)


class ListColumns:
    """Attributes of model, by name, as the columns of a list's select."""

    def __init__(self, model: type[Base], names: Sequence[str]) -> None:
        mapper = inspect(model)
        self.model = model
        self.names = tuple(names)
        self.table = mapper.local_table
        columns: list[ColumnElement[Any]] = []
        readers = []
        for name in self.names:
            column = mapper.columns[name]
            if isinstance(column.type, UTCDateTime):
                columns.append(iso_ms(column).label(name))
                readers.append(_timestamp)
            elif isinstance(column.type, JSON):
                text = _JsonText(nullable=bool(column.nullable))
                columns.append(type_coerce(column, text).label(name))
                readers.append(_plain)
            else:
                columns.append(column.label(name))
                readers.append(_plain)
        self.columns = tuple(columns)
        self._readers = tuple(zip(self.names, readers, strict=True))
        self.key = mapper.columns["id"]
        """The primary key: lists are ordered by it."""

    def select(self) -> Select[Any]:
        return select(*self.columns)

    def row(self, obj: Base) -> tuple[Any, ...]:
        """An ORM object as a row of these columns."""
        return tuple(read(getattr(obj, name)) for name, read in self._readers)


@dataclass(frozen=True)
class Derived:
    """An attribute computed by `read` from the values of `columns`, passed in that order (a
    column of the row, or a value the renderer adds)."""

    read: Callable[..., Any]
    columns: tuple[str, ...]


def derived(read: Callable[..., Any], *columns: str) -> Derived:
    return Derived(read, columns)


def stored(*names: str) -> dict[str, str]:
    """Attributes that are the columns of the same names, as stored."""
    return {name: name for name in names}


class ResourceAttributes:
    """A resource's attributes declared once, in the order the API writes them: each the
    column of the same name as stored (`str`: a column's name) or derived from columns.

    The list and the single read render with it (the list from its rows, the single read from
    the object's row, ListColumns.row); the OpenAPI model names the same attributes in the
    same order (tested). The select reads "id" and every column the attributes name but
    `added`: the values the renderer passes (the caller's team_name, a base URL).
    """

    def __init__(
        self,
        model: type[Base],
        kind: str,
        table: Mapping[str, str | Derived],
        *,
        added: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.names = tuple(table)
        self.added = added
        columns = ["id"]
        for source in table.values():
            needed = (source,) if isinstance(source, str) else source.columns
            columns += [c for c in needed if c not in columns and c not in added]
        self.columns = ListColumns(model, columns)
        position = {name: index for index, name in enumerate([*columns, *added])}
        stored = {name: source for name, source in table.items() if isinstance(source, str)}
        self._stored_names = tuple(stored)
        self._stored = _getter([position[column] for column in stored.values()])
        derived = {name: source for name, source in table.items() if isinstance(source, Derived)}
        self._of_one = tuple(
            (name, source.read, position[source.columns[0]])
            for name, source in derived.items()
            if len(source.columns) == 1
        )
        self._of_several = tuple(
            (name, source.read, _getter([position[column] for column in source.columns]))
            for name, source in derived.items()
            if len(source.columns) != 1
        )
        self._order = dict.fromkeys(self.names)
        """Every attribute in its place: the stored ones are filled in at once, then the
        derived ones, and the API's order holds."""

    def resources(self, rows: Iterable[Sequence[Any]], **added: Any) -> list[dict[str, Any]]:
        """Rows of `columns` as API resources; `added`: a value for each name of `added`."""
        extra = tuple(added[name] for name in self.added)
        order, stored_names, stored = self._order, self._stored_names, self._stored
        of_one, of_several = self._of_one, self._of_several
        resources = []
        for row in rows:
            values = (*row, *extra)
            attributes = order.copy()
            attributes.update(zip(stored_names, stored(values), strict=True))
            for name, read, index in of_one:
                attributes[name] = read(values[index])
            for name, read, arguments in of_several:
                attributes[name] = read(*arguments(values))
            resources.append({"id": str(row[0]), "type": self.kind, "attributes": attributes})
        return resources

    def resource(self, obj: Base, **added: Any) -> dict[str, Any]:
        """One object as the API resource (the single read, a create's or update's answer)."""
        return self.resources([self.columns.row(obj)], **added)[0]


def _getter(positions: Sequence[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """The values at these positions, as a tuple (itemgetter's, in C, for two or more)."""
    if len(positions) > 1:
        return itemgetter(*positions)
    return lambda values: tuple(values[position] for position in positions)
