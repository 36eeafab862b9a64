"""The agent against a real `watchpost serve`: it claims what is due in one go and then waits
for the server's next_in_s, not once for every check that finishes (each claim is a write
transaction on the server), and sends the results in a few batches."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from tests.factories.processes import cli_env, run_cli, serve, stop
from watchpost.agent.runner import Agent

MONITORS = 20


def cli(env: dict[str, str], *args: str) -> str:
    done = run_cli(env, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


async def test_the_agent_claims_a_round_at_once_and_batches_its_results(tmp_path: Path) -> None:
    env = cli_env(f"sqlite:///{tmp_path / 'watchpost.db'}", WATCHPOST_DATA_DIR=str(tmp_path))
    api_token = cli(env, "token", "create", "--team", "acme")
    cli(env, "location", "create", "pace", "--region", "au")
    probe_token = cli(env, "probe-token", "create", "--location", "pace")
    served = serve(env, tmp_path / "server")
    try:
        async with httpx.AsyncClient(
            base_url=served.base, headers={"Authorization": f"Bearer {api_token}"}
        ) as api:
            for n in range(MONITORS):
                body = {
                    "url": f"{served.base}/healthz?n={n}",
                    "locations": ["pace"],
                    "regions": ["au"],  # the server's own location (us) does not check them
                    "check_frequency": 300,
                }
                created = await api.post("/api/v2/monitors", json=body)
                assert created.status_code == 201, created.text

        agent = Agent(served.base, probe_token, location="pace")
        calls: Counter[str] = Counter()
        applied = Counter[str]()
        all_in = asyncio.Event()
        post = agent._post

        async def counted(path: str, body: dict[str, Any]) -> Any:
            calls[path] += 1
            answer = await post(path, body)
            if path == "results":
                applied["results"] += int(answer["applied"])
                if applied["results"] >= MONITORS:
                    all_in.set()
            return answer

        agent._post = counted  # type: ignore[method-assign]
        running = asyncio.create_task(agent.run())
        await asyncio.wait_for(all_in.wait(), timeout=60)
        agent.stop()
        await running
    finally:
        stop(served)
    assert agent.applied == MONITORS and agent.discarded == 0
    # Every monitor was due at once: one claim took them all; the next waits for next_in_s
    # (their next slots are spread over 300 s), however many checks finish meanwhile. The
    # old agent asked again after every finished check: 20 claims and more.
    assert calls["claims"] <= 3, calls
    assert calls["results"] < MONITORS / 2, calls
    assert calls["hello"] == 1 and calls["bye"] == 1
