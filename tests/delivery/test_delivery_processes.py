"""The real server delivers: `watchpost serve` sends a reported incident to a webhook, and a
server killed in the middle of the retry schedule delivers after its restart."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import httpx

from tests.factories.delivery import WEBHOOKS, Answer, receiver
from tests.factories.processes import cli_env, run_cli, serve, stop


def _attempts(database: Path) -> int:
    with sqlite3.connect(database) as conn:
        row = conn.execute("SELECT coalesce(max(attempts), 0) FROM deliveries").fetchone()
    return int(row[0])


async def _recorded(database: Path) -> None:
    """Until the server has written the outcome of the first attempt (up to 30 s)."""
    for _ in range(600):
        if _attempts(database) >= 1:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the first attempt was never recorded")


async def test_a_killed_server_delivers_after_its_restart(tmp_path: Path) -> None:
    database = tmp_path / "watchpost.db"
    env = cli_env(
        f"sqlite:///{database}",
        WATCHPOST_DATA_DIR=str(tmp_path / "data"),
        WATCHPOST_DELIVERY_RETRY_DELAYS="0,1",
    )
    token = run_cli(env, "token", "create", "--team", "acme")
    assert token.returncode == 0, token.stderr
    headers = {"Authorization": f"Bearer {token.stdout.strip()}"}
    async with receiver() as hook:
        hook.answer("/hook", Answer(500))
        first = serve(env, tmp_path / "first", engine=True)
        try:
            async with httpx.AsyncClient(base_url=first.base, headers=headers) as client:
                created = await client.post(
                    WEBHOOKS,
                    json={
                        "url": hook.url(),
                        "trigger_type": "incident_change",
                        "on_incident_started": True,
                    },
                )
                assert created.status_code == 201, created.text
                reported = await client.post(
                    "/api/v2/incidents", json={"name": "Shop down", "summary": "502s"}
                )
                assert reported.status_code == 201, reported.text
            await asyncio.wait_for(hook.arrived.wait(), 30)
            await _recorded(database)
            first.process.send_signal(signal.SIGKILL)
            first.process.wait()
        finally:
            stop(first)
        assert len(hook.at("/hook")) == 1
        hook.arrived.clear()
        second = serve(env, tmp_path / "second", engine=True)
        try:
            await asyncio.wait_for(hook.arrived.wait(), 30)
        finally:
            stop(second)
        requests = hook.at("/hook")
    assert len(requests) == 2
    assert requests[0].headers["webhook-id"] == requests[1].headers["webhook-id"]
    assert requests[1].json()["data"]["attributes"]["name"] == "Shop down"
    logged = "\n".join(first.log_lines())
    assert "incident 1 started" in logged and "failed, attempt 1: HTTP 500" in logged
