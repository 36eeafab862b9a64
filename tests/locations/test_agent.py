"""The agent's own rules: which server addresses it talks to, a bounded buffer that keeps
results while the server is unreachable, batches that stay under the server's body limit."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import aiohttp

from tests.factories.processes import cli_env, run_cli
from tests.factories.servers import free_port
from watchpost.agent.runner import BATCH, Agent, Finished
from watchpost.agent.wire import check_input, server_problem
from watchpost.probes.base import ProbeResult
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.targets.settings import TargetSettings


def finished(n: int, error: str | None = None) -> Finished:
    result = ProbeResult(ok=error is None, latency_ms=1.0, error=error)
    return Finished(f"location_check.{n}.1", result, time.monotonic(), datetime.now(UTC))


def test_the_server_address_must_be_https_unless_loopback_or_said() -> None:
    assert server_problem("https://watchpost.example.com", insecure_http=False) is None
    assert server_problem("http://127.0.0.1:8000", insecure_http=False) is None
    assert server_problem("http://[::1]:8000", insecure_http=False) is None
    assert server_problem("http://10.0.0.5:8000", insecure_http=False) is not None
    assert server_problem("http://10.0.0.5:8000", insecure_http=True) is None
    assert server_problem("ftp://example.com", insecure_http=True) is not None


def test_the_command_refuses_plain_http_and_a_missing_token() -> None:
    env = cli_env("sqlite:////nonexistent/never-opened.db")
    done = run_cli(env, "probe", "--server", "http://10.0.0.5:8000", "--token", "wpp_x")
    assert done.returncode == 2 and "https" in done.stderr
    done = run_cli(env, "probe", "--server", "https://example.com")
    assert done.returncode == 2 and "--token" in done.stderr


def test_check_inputs_come_back_as_the_engines() -> None:
    check = check_input(
        "monitor",
        {
            "monitor_type": "status",
            "url": "https://example.com",
            "request_headers": [{"name": "X-A", "value": "1"}],
            "expected_status_codes": [200],
            "environment_variables": [["A", "1"]],
        },
    )
    assert isinstance(check, MonitorCheck)
    assert check.request_headers[0].name == "X-A" and check.environment_variables == (("A", "1"),)
    target = check_input("collector_target", {"kind": "redis", "host": "127.0.0.1", "port": 6379})
    assert isinstance(target, TargetSettings) and target.port == 6379


async def test_results_wait_while_the_server_is_unreachable_and_the_buffer_is_bounded() -> None:
    agent = Agent(f"http://127.0.0.1:{free_port()}", "wpp_x", buffer_max=3)
    for n in range(3):
        agent.buffer.append(finished(n))
    async with aiohttp.ClientSession() as agent._http:
        assert await agent.flush() is False  # connection refused: nothing is lost
    assert [f.token for f in agent.buffer] == [f"location_check.{n}.1" for n in range(3)]
    agent.buffer.append(finished(3))  # full: the oldest gives way
    assert agent.buffer[0].token == "location_check.1.1"


def test_a_batch_stays_under_the_body_limit() -> None:
    agent = Agent("http://127.0.0.1:1", "wpp_x")
    for n in range(BATCH + 10):
        agent.buffer.append(finished(n))
    assert len(agent._batch()) == BATCH
    agent.buffer.clear()
    for n in range(400):
        agent.buffer.append(finished(n, error="x" * 4000))
    batch = agent._batch()
    assert 100 < len(batch) < 400
