"""`watchpost location …` and `watchpost probe-token …` against a temporary SQLite file, through
watchpost.cli.main (run_cli_in_process) and once through the real entry point (run_cli)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.factories.processes import cli_env, run_cli, run_cli_in_process
from tests.test_cli import one_line_error
from watchpost.crypto import hash_token


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return cli_env(f"sqlite:///{tmp_path / 'db' / 'watchpost.db'}")


def _ok(env: dict[str, str], *args: str) -> str:
    result = run_cli_in_process(env, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _rows(tmp_path: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(tmp_path / "db" / "watchpost.db") as conn:
        return conn.execute(query).fetchall()


def test_locations_created_listed_changed_deleted(env: dict[str, str], tmp_path: Path) -> None:
    _ok(env, "token", "create", "--team", "acme")
    _ok(env, "location", "create", "eu-west", "--region", "eu", "--offline-after", "120")
    _ok(env, "location", "create", "office", "--region", "eu", "--team", "acme")
    _ok(env, "location", "create", "lab", "--region", "as", "--private")
    lines = _ok(env, "location", "list").splitlines()
    assert lines[0].split() == [
        "NAME", "REGION", "PRIVATE", "TEAM", "SERVER", "STATUS", "LAST", "SEEN", "(UTC)"
    ]  # fmt: skip
    rows = [line.split() for line in lines[1:]]
    assert rows == [
        ["eu-west", "eu", "no", "-", "no", "unknown", "-"],
        ["lab", "as", "yes", "-", "no", "unknown", "-"],
        ["local", "us", "no", "-", "yes", "online", "-"],
        ["office", "eu", "yes", "acme", "no", "unknown", "-"],
    ]
    _ok(env, "location", "set", "local", "--name", "home", "--region", "eu")
    _ok(env, "location", "set", "lab", "--shared", "--offline-after", "300")
    assert _rows(tmp_path, "SELECT name, region, private, offline_after_s FROM locations") == [
        ("home", "eu", 0, 90),
        ("eu-west", "eu", 0, 120),
        ("office", "eu", 1, 90),
        ("lab", "as", 0, 300),
    ]
    _ok(env, "location", "delete", "lab")
    assert "lab" not in _ok(env, "location", "list")


def test_location_refusals_are_one_line(env: dict[str, str]) -> None:
    _ok(env, "location", "list")  # the database and its secret key made
    cases = {
        ("location", "create", "Bad", "--region", "eu"): "name must be",
        ("location", "create", "x", "--region", "eu", "--team", "nope"): "no team named 'nope'",
        ("location", "create", "x", "--region", "eu", "--offline-after", "5"): "30 to 86400",
        ("location", "create", "local", "--region", "eu"): "is taken",
        ("location", "delete", "local"): "server's own",
        ("location", "set", "local", "--private"): "cannot be private",
        ("location", "set", "nope", "--region", "eu"): "no location named 'nope'",
        ("location", "create", "x", "--region", "xx"): "invalid choice",
        ("probe-token", "create", "--location", "nope"): "no location named 'nope'",
        ("probe-token", "revoke", "wpp_"): "at least the first 8",
        ("probe-token", "revoke", "wp_abcdefgh"): "at least the first 8",
        ("probe-token", "revoke", "wpp_zzzzzzzz"): "no active probe token",
    }
    for args, expected in cases.items():
        assert expected in one_line_error(run_cli_in_process(env, *args)), args


def test_probe_tokens_created_listed_revoked(env: dict[str, str], tmp_path: Path) -> None:
    _ok(env, "location", "create", "eu-west", "--region", "eu")
    created = run_cli(env, "probe-token", "create", "--location", "eu-west", "--name", "host-1")
    assert created.returncode == 0, created.stderr
    lines = created.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wpp_") and len(lines[0]) >= 44
    token = lines[0]
    assert _rows(tmp_path, "SELECT prefix, token_hash, name FROM probe_tokens") == [
        (token[:12], hash_token(token), "host-1")
    ]
    with sqlite3.connect(tmp_path / "db" / "watchpost.db") as conn:
        assert token not in "\n".join(conn.iterdump())
    second = _ok(env, "probe-token", "create", "--location", "eu-west").strip()

    listed = _ok(env, "probe-token", "list")
    assert token not in listed and token[:12] + "…" in listed
    row = next(line for line in listed.splitlines() if line.startswith(token[:12]))
    assert row.split()[1:3] == ["eu-west", "host-1"] and row.endswith("active")

    revoked = run_cli_in_process(env, "probe-token", "revoke", token[:12])
    assert revoked.returncode == 0 and token[:12] in revoked.stderr
    assert token not in revoked.stderr + revoked.stdout
    row = next(
        line for line in _ok(env, "probe-token", "list").splitlines() if line.startswith(token[:12])
    )
    assert "revoked" in row
    assert "no active probe token" in one_line_error(
        run_cli_in_process(env, "probe-token", "revoke", token)
    )
    # An API token's prefix names no probe token.
    api_token = _ok(env, "token", "create", "--team", "acme").strip()
    assert one_line_error(run_cli_in_process(env, "probe-token", "revoke", api_token))
    assert second != token
