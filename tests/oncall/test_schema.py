"""Migration 0017 on both backends: it builds exactly what the models declare, goes down
and up again; and the default calendar is made once when many requests want it at once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from tests.conftest import postgres_schema
from tests.factories.api import Api
from watchpost.db.migrate import alembic_config, sync_url, upgrade
from watchpost.db.registry import all_metadata
from watchpost.settings import Settings

TABLES = {"on_call_calendars", "on_call_events"}


@contextmanager
def fresh_database(kind: str, folder: Path) -> Iterator[str]:
    """An empty database of that kind, as an async URL."""
    if kind == "sqlite":
        yield Settings(database_url=f"sqlite:///{folder / 'm.db'}").async_database_url
    else:
        with postgres_schema("wp_oncall") as url:
            yield Settings(database_url=url).async_database_url


def _differences(url: str) -> list[Any]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), all_metadata())
    finally:
        engine.dispose()
    return [diff for diff in diffs if any(table in str(diff) for table in TABLES)]


def _tables(url: str) -> set[str]:
    engine = sa.create_engine(sync_url(url))
    try:
        return set(sa.inspect(engine).get_table_names()) & TABLES
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_migration_builds_the_models_and_goes_down_and_up(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        upgrade(url)
        assert _tables(url) == TABLES
        assert _differences(url) == []
        command.downgrade(alembic_config(url), "0016")
        assert _tables(url) == set()
        assert len(_differences(url)) >= 2  # the comparison sees the tables missing
        upgrade(url)
        assert _tables(url) == TABLES and _differences(url) == []


async def test_many_requests_at_once_make_one_default_calendar(api: Api) -> None:
    answers = await asyncio.gather(*(api.get("/api/v2/on-calls/default") for _ in range(8)))
    assert {a.status_code for a in answers} == {200}
    assert len({a.json()["data"]["id"] for a in answers}) == 1
    listed = (await api.get("/api/v2/on-calls")).json()["data"]
    assert [c["attributes"]["default_calendar"] for c in listed] == [True]
