"""The declarative base, shared column types and mixins for every table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, ForeignKey, Integer, MetaData, String, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# BIGINT on PostgreSQL; on SQLite it must stay INTEGER to be the rowid alias.
IdType = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC in Python; stored as UTC on every backend (naive on SQLite)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        """On SQLite, the stored text parsed and made UTC in one step: what SQLite's
        DATETIME (datetime.fromisoformat) then process_result_value do, without their two
        calls a value (a status page reads hundreds of them a request)."""
        if dialect.name != "sqlite":
            return super().result_processor(dialect, coltype)
        parse = datetime.fromisoformat

        def process(value: Any) -> datetime | None:
            if value is None:
                return None
            found = parse(value)
            return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)

        return process


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class IdMixin:
    """An integer id that is never reused. PostgreSQL sequences never go back; SQLite needs
    AUTOINCREMENT, without which it hands out max(id) + 1 and a deleted newest object's id
    goes to the next one (migration 0014 rebuilt the older tables)."""

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)  # maps the class: its __table__ exists after this
        table = cls.__dict__.get("__table__")
        if isinstance(table, Table):
            # Set here, not in __table_args__, which many models define for their own indexes.
            table.dialect_kwargs["sqlite_autoincrement"] = True


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class TeamOwnedMixin:
    """Every API object belongs to exactly one team."""

    team_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="CASCADE"), index=True
    )


class iso_ms(FunctionElement[str]):
    """A UTCDateTime column as the API writes it (`2026-11-21T09:30:00.123Z`, milliseconds cut,
    not rounded, like clock.isoformat_ms), made by the database: a list selects its timestamps
    through it instead of parsing and formatting two datetimes per row in Python."""

    type = String()
    inherit_cache = True


@compiles(iso_ms, "sqlite")
def _iso_ms_sqlite(element: iso_ms, compiler: SQLCompiler, **kw: Any) -> str:
    # Stored as text, `YYYY-MM-DD HH:MM:SS.ffffff` (the fraction absent if written by hand).
    c = compiler.process(element.clauses, **kw)
    return (
        f"(substr({c}, 1, 10) || 'T' || substr({c}, 12, 8) || '.' "
        f"|| substr(substr({c}, 21) || '000', 1, 3) || 'Z')"
    )


@compiles(iso_ms, "postgresql")
def _iso_ms_postgresql(element: iso_ms, compiler: SQLCompiler, **kw: Any) -> str:
    c = compiler.process(element.clauses, **kw)
    return f"to_char({c} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
