"""Migration 0033: the rows of several teams with one e-mail become one person with a
membership in each team (the oldest row's id kept), and back down again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic import command

from watchpost.db.migrate import alembic_config

NOW = "2026-11-01 10:00:00.000000"


def test_one_person_per_e_mail_and_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'people.db'}"
    command.upgrade(alembic_config(url), "0032")
    with sqlite3.connect(tmp_path / "people.db", isolation_level=None) as conn:
        conn.execute(
            "INSERT INTO teams (id, name, created_at) VALUES (1, 'acme', ?), (2, 'globex', ?)",
            (NOW, NOW),
        )
        conn.executemany(
            "INSERT INTO users (id, team_id, email, name, created_at) VALUES (?, ?, ?, ?, ?)",
            [
                (1, 1, "ann@example.com", "Ann", NOW),
                (2, 2, "bob@example.com", "Bob", NOW),
                (3, 2, "ann@example.com", "Ann L.", NOW),
            ],
        )
    command.upgrade(alembic_config(url), "0033")
    with sqlite3.connect(tmp_path / "people.db", isolation_level=None) as conn:
        people = conn.execute("SELECT id, email, name FROM users ORDER BY id").fetchall()
        assert people == [(1, "ann@example.com", "Ann"), (2, "bob@example.com", "Bob")]
        memberships = conn.execute(
            "SELECT team_id, user_id, role FROM memberships ORDER BY team_id, user_id"
        ).fetchall()
        assert memberships == [(1, 1, "admin"), (2, 1, "admin"), (2, 2, "admin")]
        assert conn.execute("SELECT require_two_factor FROM teams").fetchall() == [(0,), (0,)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    command.downgrade(alembic_config(url), "0032")
    with sqlite3.connect(tmp_path / "people.db", isolation_level=None) as conn:
        rows = conn.execute("SELECT team_id, email FROM users ORDER BY team_id, email").fetchall()
        assert rows == [(1, "ann@example.com"), (2, "ann@example.com"), (2, "bob@example.com")]
