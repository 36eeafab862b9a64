"""Ping URLs carry their heartbeat's token: no log line shows it."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx

from tests.factories.processes import cli_env, run_cli_in_process
from tests.test_restart import free_port, start, stop
from watchpost.http.logs import MASK, PATH_LOGGERS, RedactSecretPaths
from watchpost.routes import secret_path_prefixes

PING = "/api/v1/heartbeat/"


def access_record(path: str) -> logging.LogRecord:
    """A record shaped like uvicorn's access log lines."""
    return logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", path, "1.1", 200),
        None,
    )


def test_the_ping_prefix_is_declared_secret() -> None:
    assert PING in secret_path_prefixes()


def test_the_token_segment_is_masked_and_the_rest_kept() -> None:
    redactor = RedactSecretPaths([PING])
    for path, shown in [
        (f"{PING}abc123", f"{PING}{MASK}"),
        (f"{PING}abc123/fail", f"{PING}{MASK}/fail"),
        (f"{PING}abc123/7?x=1", f"{PING}{MASK}/7?x=1"),
        ("/api/v2/heartbeats/5", "/api/v2/heartbeats/5"),
    ]:
        record = access_record(path)
        assert redactor.filter(record)
        assert record.getMessage() == f'127.0.0.1:5000 - "GET {shown} HTTP/1.1" 200'


def test_messages_without_arguments_are_masked_too() -> None:
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, f"GET {PING}tok", None, None)
    RedactSecretPaths([PING]).filter(record)
    assert record.getMessage() == f"GET {PING}{MASK}"


def test_the_app_puts_the_filter_on_every_path_logger(shared_app: object) -> None:
    for name in PATH_LOGGERS:
        filters = [f for f in logging.getLogger(name).filters if isinstance(f, RedactSecretPaths)]
        assert len(filters) == 1


def test_the_real_servers_access_log_never_shows_a_ping_token(tmp_path: Path) -> None:
    env = cli_env(f"sqlite:///{tmp_path / 'watchpost.db'}", WATCHPOST_DATA_DIR=str(tmp_path))
    created = run_cli_in_process(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    headers = {"Authorization": f"Bearer {created.stdout.strip()}"}
    port = free_port()
    access_log = (tmp_path / "stdout.log").open("wb")
    process = start(env, port, stdout=access_log)
    try:
        base = f"http://127.0.0.1:{port}"
        made = httpx.post(f"{base}/api/v2/heartbeats", json={"name": "nightly"}, headers=headers)
        assert made.status_code == 201, made.text
        url = made.json()["data"]["attributes"]["url"]
        token = url.rsplit("/", 1)[1]
        path = url.split(str(port), 1)[1]
        assert httpx.get(f"{base}{path}").status_code == 200
        assert httpx.post(f"{base}{path}/fail", content=b"boom").status_code == 200
        assert httpx.get(f"{base}{PING}not-a-token").status_code == 404
    finally:
        stop(process)
        access_log.close()
    assert process.stderr is not None
    log = process.stderr.read().decode() + (tmp_path / "stdout.log").read_text()
    assert f"{PING}{MASK}" in log and f"{PING}{MASK}/fail" in log
    assert token not in log
    assert "not-a-token" not in log
