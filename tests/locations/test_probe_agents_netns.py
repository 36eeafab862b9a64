"""Probe agents from separate networks: three network namespaces (`ip netns`, veth), one
`watchpost probe` in each, a real `watchpost serve` on the machine, and a web server that
only one namespace (and the machine) can reach.

One story, in order: with two agents running the monitor is up and degraded (one of two
fails: no majority, no incident); the third agent makes two of three fail and the incident
opens, naming where it failed and where not; SIGKILL of that agent marks its location
offline and its silence is not counted (the monitor recovers, no new monitor incident); the
server killed while a check is in flight and started again loses no result, and the result
is stamped with when the check ran.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from tests.factories.netns import Host, wait_for_tcp
from tests.factories.processes import SRC, cli_env, run_cli_in_process, serve, stop
from tests.factories.servers import free_port

pytestmark = pytest.mark.xdist_group("netns")

SLOW_S = 3.0
"""How long the target takes to answer: a check is in flight that long."""

# A web server that answers every GET after SLOW_S seconds and notes each request's arrival.
SLOW_SERVER = """
import http.server, sys, time
class Slow(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[3], "a") as log:
            log.write(f"{time.time()}\\n")
        time.sleep(float(sys.argv[4]))
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Slow).serve_forever()
"""


def until(what: str, check: Callable[[], Any], timeout: float = 90.0) -> Any:
    """check()'s first truthy value, asked every 0.2 s; fails after timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def agent(host: Host, server_port: int, token: str, folder: Path) -> subprocess.Popen[bytes]:
    """`watchpost probe` in the namespace: its flags, PATH and the source, nothing else."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": SRC}
    with (folder / f"agent-{host.name}.log").open("wb") as log:
        return host.popen(
            [
                sys.executable,
                "-m",
                "watchpost.cli",
                "probe",
                "--server",
                f"http://{host.host_ip}:{server_port}",
                "--token",
                token,
                "--insecure-http",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder,
        )


def cli(env: dict[str, str], *args: str) -> str:
    done = run_cli_in_process(env, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_agents_in_three_networks(make_hosts: Callable[[int], list[Host]], tmp_path: Path) -> None:
    a, b, c = make_hosts(3)
    database = tmp_path / "watchpost.db"
    env = cli_env(f"sqlite:///{database}", WATCHPOST_DATA_DIR=str(tmp_path / "data"))
    headers = {"Authorization": f"Bearer {cli(env, 'token', 'create', '--team', 'acme')}"}
    tokens = {}
    for host in (a, b, c):
        cli(env, "location", "create", host.name, "--region", "eu", "--offline-after", "30")
        tokens[host.name] = cli(env, "probe-token", "create", "--location", host.name)
    target_port = free_port()
    arrivals = tmp_path / "arrivals.log"
    arrivals.touch()
    target = a.popen(
        [sys.executable, "-c", SLOW_SERVER, a.ip, str(target_port), str(arrivals), str(SLOW_S)]
    )
    wait_for_tcp((a.ip, target_port), target)
    port = free_port()
    served = serve(env, tmp_path / "server", engine=True, host="0.0.0.0", port=port)  # noqa: S104
    agents: dict[str, subprocess.Popen[bytes]] = {}
    try:
        http = httpx.Client(base_url=served.base, headers=headers, timeout=30)
        body = {
            "url": f"http://{a.ip}:{target_port}/",
            "regions": ["au"],  # no location there: only the three named ones check it
            "locations": [a.name, b.name, c.name],
            "check_frequency": 30,
            "confirmation_period": 0,
            "recovery_period": 0,
        }
        created = http.post("/api/v2/monitors", json=body)
        assert created.status_code == 201, created.text
        path = f"/api/v2/monitors/{created.json()['data']['id']}"

        def shown() -> dict[str, Any]:
            attributes: dict[str, Any] = http.get(path).json()["data"]["attributes"]
            return attributes

        def incidents() -> list[dict[str, Any]]:
            found: list[dict[str, Any]] = http.get("/api/v3/incidents").json()["data"]
            return found

        # Two agents: up from a, down from b: degraded, no incident.
        def location_status(name: str) -> str:
            for item in http.get("/api/v2/locations").json()["data"]:
                if item["attributes"]["name"] == name:
                    return str(item["attributes"]["status"])
            raise AssertionError(name)

        for host in (a, b):
            agents[host.name] = agent(host, port, tokens[host.name], tmp_path)
            name = host.name
            until(f"{name} online", lambda: location_status(name) == "online")  # noqa: B023
        until("a degraded monitor", lambda: shown()["degraded"])

        def answered(name: str) -> bool:
            """The location's result is in (a's check takes SLOW_S: it may come last)."""
            regions = http.get(f"{path}/response-times").json()["data"]["attributes"]["regions"]
            return any(r["location"] == name and r["response_times"] for r in regions)

        until("a's result", lambda: answered(a.name))
        assert shown()["status"] == "up"
        assert incidents() == []

        # The third agent: two of three fail, the incident opens.
        agents[c.name] = agent(c, port, tokens[c.name], tmp_path)
        until("the monitor down", lambda: shown()["status"] == "down")
        (incident,) = incidents()
        cause = incident["attributes"]["cause"]
        assert cause.startswith("Down from ") and f"; up from {a.name}" in cause, cause
        assert b.name in cause and c.name in cause
        places = {p["location"]: p["status"] for p in incident["attributes"]["locations"]}
        assert places == {a.name: "up", b.name: "down", c.name: "down"}

        # c killed: its location goes offline, its silence is no failure.
        os.killpg(agents.pop(c.name).pid, signal.SIGKILL)

        until("c offline", lambda: location_status(c.name) == "offline", timeout=120)
        until("the monitor back up", lambda: shown()["status"] == "up", timeout=120)
        monitor_incidents = [i for i in incidents() if i["attributes"]["monitor_id"] is not None]
        assert len(monitor_incidents) == 1  # the outage above, now resolved
        assert monitor_incidents[0]["attributes"]["resolved_at"] is not None
        offline = [i for i in incidents() if c.name in i["attributes"]["name"]]
        assert offline, "admins are told through an incident"

        # The server dies while a's check is in flight; started again, the result arrives,
        # stamped with when the check ran.
        seen = len(arrivals.read_text().splitlines())
        until("a's next check", lambda: len(arrivals.read_text().splitlines()) > seen, 60)
        started = datetime.fromtimestamp(float(arrivals.read_text().splitlines()[-1]), tz=UTC)
        os.kill(served.process.pid, signal.SIGKILL)
        served.process.wait(timeout=30)
        log = tmp_path / f"agent-{a.name}.log"
        until("a's result kept", lambda: "kept for later" in log.read_text(), 30)
        served = serve(env, tmp_path / "again", engine=True, host="0.0.0.0", port=port)  # noqa: S104
        http = httpx.Client(base_url=served.base, headers=headers, timeout=30)

        def stored_at() -> datetime | None:
            engine = sa.create_engine(f"sqlite:///{database}")
            try:
                with engine.connect() as conn:
                    row = conn.execute(
                        sa.text(
                            "SELECT max(r.at) FROM check_results r JOIN locations l "
                            "ON l.id = r.location_id WHERE l.name = :name"
                        ),
                        {"name": a.name},
                    ).scalar()
            finally:
                engine.dispose()
            if row is None:
                return None
            at = datetime.fromisoformat(str(row))
            at = at if at.tzinfo else at.replace(tzinfo=UTC)
            return at if at > started else None

        ran = until("the buffered result stored", stored_at, 60)
        assert (ran - started).total_seconds() < SLOW_S + 2  # when it ran, not when it arrived

        # Stopped cleanly, each agent lost nothing and nothing counted twice.
        for process in agents.values():
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        for host in (a, b):
            text = (tmp_path / f"agent-{host.name}.log").read_text()
            assert "0 discarded, 0 dropped, 0 unsent" in text, text[-2000:]
    finally:
        for process in agents.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        stop(served)
        target.kill()
