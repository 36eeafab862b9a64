"""Migration 0031 on both backends: the incidents' change stamp, set by the database on every
insert and update (status_pages/incident_reads.py compares their sums). Incidents that were
there before get 0 without a rewrite; the models and the schema agree; down and up again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from tests.factories.migrations import differences, fresh_database
from watchpost.db.migrate import alembic_config, sync_url, upgrade

WATCHED = ("change_stamp", "incidents")
_INSERT = sa.text(
    "INSERT INTO incidents (team_id, name, cause, manual, call, sms, email, push, "
    "critical_alert, metadata, started_at, created_at, updated_at) VALUES (:team, :name, "
    "'timeout', false, false, false, true, false, false, '{}', :at, :at, :at)"
)
_AT = "2026-03-01 10:00:00"


def _run(url: str, *statements: Any) -> list[Any]:
    """The statements in one transaction; the rows of the last."""
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.begin() as conn:
            found: list[Any] = []
            for statement, params in statements:
                result = conn.execute(statement, params)
                found = list(result) if result.returns_rows else []
            return found
    finally:
        engine.dispose()


def _stamps(url: str) -> dict[str, int]:
    rows = _run(url, (sa.text("SELECT name, change_stamp FROM incidents"), {}))
    return {name: int(stamp) for name, stamp in rows}


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_database_stamps_every_insert_and_update(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0030")
        team = sa.text("INSERT INTO teams (name, created_at) VALUES ('t', :at)")
        _run(url, (team, {"at": _AT}), (_INSERT, {"team": 1, "name": "old", "at": _AT}))
        upgrade(url)
        assert differences(url, WATCHED) == []
        assert _stamps(url) == {"old": 0}  # there before: 0 until it changes

        _run(url, (_INSERT, {"team": 1, "name": "new", "at": _AT}))
        stamps = _stamps(url)
        assert stamps["new"] > 0
        rename = sa.text("UPDATE incidents SET cause = 'changed' WHERE name = :name")
        _run(url, (rename, {"name": "old"}))
        after = _stamps(url)
        assert after["old"] not in (0, stamps["new"]) and after["new"] == stamps["new"]
        # two updates in two transactions: two stamps (the fingerprint's sum moves each time)
        _run(url, (rename, {"name": "new"}))
        again = _stamps(url)
        _run(url, (rename, {"name": "new"}))
        assert len({stamps["new"], again["new"], _stamps(url)["new"]}) == 3
        # an explicit value is not taken on an insert (the database sets the stamp)
        stamped = sa.text(
            "INSERT INTO incidents (team_id, name, cause, manual, call, sms, email, push, "
            "critical_alert, metadata, started_at, created_at, updated_at, change_stamp) "
            "VALUES (1, 'set', 'x', false, false, false, true, false, false, '{}', :at, :at, "
            ":at, 0)"
        )
        _run(url, (stamped, {"at": _AT}))
        assert _stamps(url)["set"] > 0

        command.downgrade(alembic_config(url), "0030")
        rows = _run(url, (sa.text("SELECT name FROM incidents ORDER BY id"), {}))
        assert [name for (name,) in rows] == ["old", "new", "set"]
        upgrade(url)
        assert differences(url, WATCHED) == []
        assert set(_stamps(url).values()) == {0}
