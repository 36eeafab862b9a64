"""Migration 0017 on both backends: it builds exactly what the models declare, goes down
and up again; and the default calendar is made once when many requests want it at once."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from alembic import command

from tests.factories import migrations
from tests.factories.api import Api
from watchpost.db.migrate import alembic_config, upgrade

TABLES = {"on_call_calendars", "on_call_events"}


def fresh_database(kind: str, folder: Path) -> AbstractContextManager[str]:
    return migrations.fresh_database(kind, folder, prefix="wp_oncall")


def _differences(url: str) -> list[Any]:
    return migrations.differences(url, TABLES)


def _tables(url: str) -> set[str]:
    return migrations.tables(url, TABLES)


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
