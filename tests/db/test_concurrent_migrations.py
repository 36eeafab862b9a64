"""Several processes started together on a new database (e.g. workers) all migrate it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg

from tests.conftest import postgres_schema
from tests.factories.processes import cli_env

PROCESSES = 4


def migrate_together(env: dict[str, str]) -> list[subprocess.CompletedProcess[str]]:
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "watchpost.cli", "migrate"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    done = []
    for process in started:
        out, err = process.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    from watchpost.db.migrate import alembic_config

    head = ScriptDirectory.from_config(alembic_config("sqlite:///unused.db")).get_current_head()
    assert head is not None
    return head


def test_sqlite(tmp_path: Path) -> None:
    database = tmp_path / "new.db"
    results = migrate_together(cli_env(f"sqlite:///{database}"))
    assert [r.returncode for r in results] == [0] * PROCESSES, [r.stderr for r in results]
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (head_revision(),)
        ]


def test_postgres() -> None:
    with postgres_schema("wp_migrate") as url:
        results = migrate_together(cli_env(url))
        assert [r.returncode for r in results] == [0] * PROCESSES, [r.stderr for r in results]
        with psycopg.connect(url, autocommit=True) as conn:  # search_path is the schema
            rows = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        assert rows == [(head_revision(),)]
