"""Upsert: INSERT … ON CONFLICT DO UPDATE of many rows, built once per dialect."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from sqlalchemy import ColumnElement, Table, TextClause, bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession


def dialect_module(name: str) -> ModuleType:
    """SQLAlchemy's module of a dialect ("postgresql", else SQLite's), whose insert() takes
    ON CONFLICT. Imported when first asked for: a SQLite server never loads PostgreSQL's
    (≈ 2 MB resident)."""
    return importlib.import_module(
        "sqlalchemy.dialects.postgresql" if name == "postgresql" else "sqlalchemy.dialects.sqlite"
    )


class Upsert:
    """INSERT … ON CONFLICT (keys) DO UPDATE for many rows, on SQLite and PostgreSQL.

    update(excluded) gives the SET clause; `excluded` holds the row that was to be
    inserted, and table.c the stored one. The statement is built and compiled once per
    dialect: SQLAlchemy cannot cache the compiled form of an ON CONFLICT clause, and
    compiling it again for every batch cost more than running it.
    """

    def __init__(
        self,
        table: Table,
        *,
        keys: Sequence[str],
        update: Callable[[Any], Mapping[str, Any]],
        where: Callable[[Any], ColumnElement[bool]] | None = None,
    ) -> None:
        self.table = table
        self.keys = list(keys)
        self.update = update
        self.where = where
        self._built: dict[str, TextClause] = {}

    def statement(self, dialect: str) -> TextClause:
        built = self._built.get(dialect)
        if built is None:
            module = dialect_module(dialect)
            insert = module.insert(self.table)
            excluded = insert.excluded
            upsert = insert.on_conflict_do_update(
                index_elements=self.keys,
                set_=dict(self.update(excluded)),
                where=self.where(excluded) if self.where is not None else None,
            )
            # Named parameters, typed as their columns: the session's dialect binds them.
            compiled = upsert.compile(dialect=module.dialect(paramstyle="named"))
            built = self._built[dialect] = text(str(compiled)).bindparams(
                *(bindparam(name, type_=bind.type) for name, bind in compiled.binds.items())
            )
        return built

    async def __call__(self, session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            dialect = session.get_bind().dialect.name
            await session.execute(self.statement(dialect), list(rows))
