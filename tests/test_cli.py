"""The `watchpost` command against temporary SQLite files: what each command does, through
watchpost.cli.main in the test's process (run_cli_in_process: the output, exit status and
stderr a subprocess would give), and the real entry point in subprocesses (`--help`, a usage
error, migrations, and tokens made and revoked while a server uses them)."""

from __future__ import annotations

import io
import logging
import sqlite3
from pathlib import Path
from unittest import mock

import httpx
import pytest

from tests.factories.processes import cli_env, run_cli, run_cli_in_process
from watchpost.app import create_app
from watchpost.cli import _logging, build_parser, main
from watchpost.crypto import hash_token
from watchpost.settings import Settings


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return cli_env(f"sqlite:///{tmp_path / 'db' / 'watchpost.db'}")


def one_line_error(result: object) -> str:
    import subprocess

    assert isinstance(result, subprocess.CompletedProcess)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("watchpost: error: ")
    return str(lines[0])


def test_token_create_list_revoke(env: dict[str, str], tmp_path: Path) -> None:
    created = run_cli_in_process(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    lines = created.stdout.splitlines()
    assert len(lines) == 1
    token = lines[0]
    assert len(token) >= 43 and token.startswith("wp_")
    # secret key generated beside the database, with a log line saying so
    key_file = tmp_path / "db" / "secret.key"
    assert key_file.exists() and "WATCHPOST_SECRET_KEY is not set" in created.stderr
    key = key_file.read_text()

    with sqlite3.connect(tmp_path / "db" / "watchpost.db") as conn:
        rows = conn.execute("SELECT token_hash, prefix FROM api_tokens").fetchall()
        dump = "\n".join(conn.iterdump())
    assert rows == [(hash_token(token), token[:12])]
    assert token not in dump

    second = run_cli_in_process(env, "token", "create", "--team", "acme").stdout.strip()
    assert second != token
    assert key_file.read_text() == key, "the key is reused, not regenerated"

    listed = run_cli_in_process(env, "token", "list")
    assert listed.returncode == 0
    assert token[:12] in listed.stdout and token not in listed.stdout
    assert "acme" in listed.stdout and "active" in listed.stdout

    assert run_cli_in_process(env, "token", "revoke", token[:12]).returncode == 0
    assert "revoked" in run_cli_in_process(env, "token", "list").stdout
    one_line_error(run_cli_in_process(env, "token", "revoke", token[:12]))  # no active token left
    assert "no active token" in one_line_error(
        run_cli_in_process(env, "token", "revoke", "wp_zzzzzzzz")
    )
    assert one_line_error(run_cli_in_process(env, "token", "revoke", "wp_"))


async def test_revoked_cli_token_gets_401(env: dict[str, str], tmp_path: Path) -> None:
    token = run_cli(env, "token", "create", "--team", "acme").stdout.strip()
    settings = Settings(database_url=env["WATCHPOST_DATABASE_URL"], data_dir=tmp_path / "data")
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await client.get("/api/v1/collectors", headers=headers)).status_code == 200
        assert run_cli(env, "token", "revoke", token).returncode == 0
        assert (await client.get("/api/v1/collectors", headers=headers)).status_code == 401
    await app.state.ctx.db.dispose()


def test_ambiguous_prefix(env: dict[str, str], tmp_path: Path) -> None:
    for _ in range(2):
        run_cli_in_process(env, "token", "create", "--team", "acme")
    with sqlite3.connect(tmp_path / "db" / "watchpost.db") as conn:
        conn.execute("UPDATE api_tokens SET prefix = 'wp_sameSAME1'")
    message = one_line_error(run_cli_in_process(env, "token", "revoke", "wp_sameSAME1"))
    assert "2 active tokens" in message


def test_users(env: dict[str, str]) -> None:
    made = run_cli_in_process(
        env, "user", "create", "--team", "acme", "--email", "Ann@Example.com", "--name", "Ann"
    )
    assert made.returncode == 0
    assert made.stdout.startswith("http://127.0.0.1:8000/login/link/wpl_"), made.stdout
    assert "admin of 'acme'" in made.stderr and "24 hours" in made.stderr
    run_cli_in_process(
        env, "user", "create", "--team", "globex", "--email", "bo@example.com", "--name", "Bo"
    )
    # The same person in a second team: one person, two memberships.
    again = run_cli_in_process(
        env,
        "user",
        "create",
        "--team",
        "globex",
        "--email",
        "ann@example.com",
        "--name",
        "A",
        "--role",
        "viewer",
    )
    assert again.returncode == 0
    listed = run_cli_in_process(env, "user", "list").stdout
    assert "ann@example.com" in listed and "bo@example.com" in listed
    ann = [line.split() for line in listed.splitlines() if "ann@example.com" in line]
    assert [(row[0], row[1], row[2]) for row in ann] == [
        ("1", "acme", "admin"),
        ("1", "globex", "viewer"),
    ]
    only = run_cli_in_process(env, "user", "list", "--team", "acme").stdout
    assert "ann@example.com" in only and "bo@example.com" not in only
    assert "already a member" in one_line_error(
        run_cli_in_process(
            env, "user", "create", "--team", "acme", "--email", "ann@example.com", "--name", "A"
        )
    )


def test_user_create_reads_the_password_from_stdin(env: dict[str, str]) -> None:
    with mock.patch("sys.stdin", io.StringIO("a long enough password\n")):
        made = run_cli_in_process(
            env,
            "user",
            "create",
            "--team",
            "acme",
            "--email",
            "cy@example.com",
            "--name",
            "Cy",
            "--role",
            "owner",
            "--password-stdin",
        )
    assert made.returncode == 0 and made.stdout.strip().isdigit()
    assert "owner" in run_cli_in_process(env, "user", "list").stdout
    with mock.patch("sys.stdin", io.StringIO("short\n")):
        refused = run_cli_in_process(
            env,
            "user",
            "create",
            "--team",
            "acme",
            "--email",
            "di@example.com",
            "--name",
            "Di",
            "--password-stdin",
        )
    assert "at least 10 characters" in one_line_error(refused)
    # Nothing was half-written: the refused person is not there.
    assert "di@example.com" not in run_cli_in_process(env, "user", "list").stdout


def test_migrate_is_idempotent(env: dict[str, str]) -> None:
    for _ in range(2):
        result = run_cli(env, "migrate")
        assert result.returncode == 0, result.stderr
        assert "up to date" in result.stderr


def _commands() -> list[list[str]]:
    parser = build_parser()
    found: list[list[str]] = [[]]

    def walk(p: object, prefix: list[str]) -> None:
        for action in getattr(p, "_actions", []):
            choices = getattr(action, "choices", None)
            if isinstance(choices, dict):
                for name, sub in choices.items():
                    found.append([*prefix, name])
                    walk(sub, [*prefix, name])

    walk(parser, [])
    return found


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "watchpost")
def test_every_command_has_help(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: watchpost" in capsys.readouterr().out


def test_help_through_the_real_entry_point(env: dict[str, str]) -> None:
    result = run_cli(env, "token", "create", "--help")
    assert result.returncode == 0 and "--team" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["frobnicate"],
        ["token"],
        ["token", "create"],
        ["token", "create", "--team"],
        ["serve", "--port", "abc"],
        ["user", "create", "--team", "x"],
    ],
)
def test_bad_usage_is_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(args)
    captured = capsys.readouterr()
    assert code != 0
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("watchpost: error: "), captured.err
    assert captured.out == ""


def test_bad_option_in_a_subprocess(env: dict[str, str]) -> None:
    one_line_error(run_cli(env, "token", "list", "--nope"))


@pytest.mark.parametrize(
    "command", [["token", "list"], ["migrate"], ["token", "create", "--team", "a"]]
)
def test_unreachable_database(command: list[str]) -> None:
    env = cli_env("postgresql://x@127.0.0.1:1/x", WATCHPOST_SECRET_KEY="k")
    result = run_cli_in_process(env, *command)
    assert result.returncode == 1
    assert "cannot reach the database" in one_line_error(result)


def test_unsupported_database_url() -> None:
    result = run_cli_in_process(cli_env("mysql://x@127.0.0.1/x"), "migrate")
    assert result.returncode == 1
    assert "unsupported database URL" in one_line_error(result)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("WATCHPOST_SMTP_URL", "ftp://alerts:s3cret-pass@mail.example.com"),
        ("WATCHPOST_DELIVERY_RETRY_DELAYS", "1,s3cret-pass"),
    ],
)
def test_a_bad_setting_is_named_without_its_value(name: str, value: str) -> None:
    """A URL setting may carry a password: the error names the setting, never echoes it."""
    result = run_cli_in_process(cli_env("sqlite:///unused.db", **{name: value}), "migrate")
    assert result.returncode == 1
    message = one_line_error(result)
    assert f"invalid configuration: {name}:" in message
    assert "s3cret" not in result.stderr + result.stdout


def _unnamed_database_env() -> dict[str, str]:
    """Neither WATCHPOST_DATABASE_URL nor WATCHPOST_DATA_DIR: the default ./data/watchpost.db."""
    env = cli_env("")
    del env["WATCHPOST_DATABASE_URL"]
    return env


@pytest.mark.parametrize(
    "command",
    [
        ["token", "create", "--team", "acme"],
        ["token", "list"],
        ["token", "revoke", "wp_abc"],
        ["user", "create", "--team", "acme", "--email", "ann@example.com", "--name", "Ann"],
        ["user", "list"],
    ],
)
def test_admin_commands_refuse_a_default_database_that_is_not_there(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    line = one_line_error(run_cli_in_process(_unnamed_database_env(), *command))
    assert f"no database at {tmp_path / 'data' / 'watchpost.db'}" in line
    assert "WATCHPOST_DATABASE_URL" in line and "WATCHPOST_DATA_DIR" in line
    assert list(tmp_path.iterdir()) == []  # no data/, no watchpost.db, no secret.key


def test_admin_commands_use_the_default_database_once_migrate_made_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = _unnamed_database_env()
    migrated = run_cli_in_process(env, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert (tmp_path / "data" / "watchpost.db").exists()
    created = run_cli_in_process(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    assert (tmp_path / "data" / "secret.key").exists()


def test_a_database_named_by_a_setting_is_created_by_admin_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    by_url = cli_env(f"sqlite:///{tmp_path / 'url' / 'watchpost.db'}")
    by_dir = _unnamed_database_env() | {"WATCHPOST_DATA_DIR": str(tmp_path / "dir")}
    for env, made in ((by_url, tmp_path / "url"), (by_dir, tmp_path / "dir")):
        created = run_cli_in_process(env, "token", "create", "--team", "acme")
        assert created.returncode == 0, created.stderr
        assert (made / "watchpost.db").exists()
    assert not (tmp_path / "data").exists()


def test_debug_logging_keeps_apprise_at_info(tmp_path: Path) -> None:
    # Apprise's debug lines name the URLs it posts to, the services' tokens in them
    root, apprise = logging.getLogger(), logging.getLogger("apprise")
    kept = (root.level, root.handlers[:], apprise.level)
    root.handlers.clear()
    try:
        _logging(Settings(data_dir=tmp_path, log_level="debug"))
        assert root.level == logging.DEBUG
        assert not apprise.isEnabledFor(logging.DEBUG)
        assert apprise.isEnabledFor(logging.INFO)
    finally:
        root.handlers[:] = kept[1]
        root.setLevel(kept[0])
        apprise.setLevel(kept[2])
