"""Tokens made and revoked with the `watchpost token` command are in the team's audit log,
the command line as the actor (a temporary SQLite file, as tests/test_cli.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.factories.processes import cli_env, run_cli_in_process


def test_token_create_and_revoke_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "db" / "watchpost.db"
    env = cli_env(f"sqlite:///{path}")
    token = run_cli_in_process(env, "token", "create", "--team", "acme").stdout.strip()
    assert token.startswith("wp_")
    assert run_cli_in_process(env, "token", "revoke", token[:12]).returncode == 0
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT a.action, a.actor_kind, a.actor, a.subject_type, a.subject, t.name "
            "FROM audit_events a JOIN teams t ON t.id = a.team_id ORDER BY a.id"
        ).fetchall()
    assert [row[0] for row in rows] == ["token.created", "token.revoked"]
    for _, kind, actor, subject_type, subject, team in rows:
        assert kind == "cli" and actor.startswith("command line (")
        assert subject_type == "token" and subject == token[:12] + "…" and team == "acme"
