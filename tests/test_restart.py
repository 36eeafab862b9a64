"""The real server keeps everything across a restart (SQLite file, and PostgreSQL if reachable)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx
import pytest

from tests.conftest import postgres_schema
from tests.factories.api import TEST_PASSWORD
from tests.factories.objects import target_body
from tests.factories.processes import cli_env, run_cli


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(
    env: dict[str, str], port: int, *, stdout: IO[bytes] | None = None
) -> subprocess.Popen[bytes]:
    """`watchpost serve` on port; stdout (uvicorn's access log) to the given file, if any."""
    process = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "watchpost.cli", "serve", "--no-engine", "--port", str(port)],
        env=env,
        stdout=stdout if stdout is not None else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    for _ in range(300):  # readiness: up to ~30 s, polling /healthz
        if process.poll() is not None:
            raise AssertionError(process.stderr.read().decode() if process.stderr else "exited")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.kill()
    raise AssertionError("server did not become ready")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'watchpost.db'}"
        return
    with postgres_schema("wp_restart") as url:
        yield url


def test_everything_survives_a_restart(database_url: str, tmp_path: Path) -> None:
    env = cli_env(database_url, WATCHPOST_DATA_DIR=str(tmp_path / "data"))
    created = run_cli(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    headers = {"Authorization": f"Bearer {created.stdout.strip()}"}
    port = free_port()
    base = f"http://127.0.0.1:{port}/api/v1/collectors"

    process = start(env, port)
    try:
        collector = httpx.post(base, json={"name": "edge", "note": "n"}, headers=headers)
        assert collector.status_code == 201, collector.text
        cid = collector.json()["data"]["id"]
        for body in (
            target_body("postgres", optional=True, password=TEST_PASSWORD),
            target_body("prometheus"),
            target_body("redis", enabled=False),
        ):
            assert (
                httpx.post(f"{base}/{cid}/targets", json=body, headers=headers).status_code == 201
            )
        before = [
            httpx.get(base, headers=headers).json(),
            httpx.get(f"{base}/{cid}/targets", headers=headers).json(),
        ]
    finally:
        stop(process)

    process = start(env, port)
    try:
        after = [
            httpx.get(base, headers=headers).json(),
            httpx.get(f"{base}/{cid}/targets", headers=headers).json(),
        ]
    finally:
        stop(process)
    assert after == before
    assert len(after[1]["data"]) == 3
    # the collector secret still decrypts: the generated key was kept and reused
    assert (
        after[0]["data"][0]["attributes"]["secret"] == before[0]["data"][0]["attributes"]["secret"]
    )
