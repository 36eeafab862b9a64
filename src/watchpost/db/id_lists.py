"""A column tested against a list of ids bound as one parameter.

`column.in_(ids)` (an expanding parameter) renders and binds one placeholder per id on every
execution: for the 250 items of a list page SQLAlchemy's work per parameter cost more than
running the query. `in_ids(column, name)` binds the whole list once, under `name`: as JSON
text read by `json_each` on SQLite, as an array on PostgreSQL. The statement is built once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import BigInteger, Boolean, ColumnElement, String, bindparam
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import TypeDecorator, TypeEngine


class _IdList(TypeDecorator[Sequence[int]]):
    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(ARRAY(BigInteger()))
        return dialect.type_descriptor(String())

    def process_bind_param(self, value: Sequence[int] | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if dialect.name == "postgresql":
            return list(value)
        return orjson.dumps(list(value)).decode()


class in_ids(FunctionElement[bool]):
    """column IN the ids bound under `name` (a sequence of integers)."""

    type = Boolean()
    inherit_cache = True

    def __init__(self, column: ColumnElement[Any] | Any, name: str) -> None:
        super().__init__(column, bindparam(name, type_=_IdList()))


def _parts(element: in_ids, compiler: SQLCompiler, **kw: Any) -> tuple[str, str]:
    column, ids = element.clauses.clauses
    return compiler.process(column, **kw), compiler.process(ids, **kw)


@compiles(in_ids, "sqlite")
def _in_ids_sqlite(element: in_ids, compiler: SQLCompiler, **kw: Any) -> str:
    column, ids = _parts(element, compiler, **kw)
    return f"{column} IN (SELECT value FROM json_each({ids}))"  # noqa: S608 (compiled parts)


@compiles(in_ids, "postgresql")
def _in_ids_postgresql(element: in_ids, compiler: SQLCompiler, **kw: Any) -> str:
    column, ids = _parts(element, compiler, **kw)
    return f"{column} = ANY({ids})"
