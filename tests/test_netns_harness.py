"""The network namespace harness: what each namespace reaches, and that nothing outlives it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.factories import netns
from tests.factories.netns import Host, netns_hosts, serve_http_in
from tests.factories.servers import free_port

pytestmark = pytest.mark.xdist_group("netns")
make_hosts = netns.make_hosts  # the fixture, here; a test folder imports it in its conftest.py

# GET argv[1] with a 5 s timeout: the body on stdout, or the error on stderr and exit 1.
GET = """
import sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as response:
        print(response.read().decode())
except OSError as exc:
    sys.exit(f"{type(exc).__name__}: {exc}")
"""


def get_from(host: Host, url: str) -> subprocess.CompletedProcess[str]:
    return host.run([sys.executable, "-I", "-c", GET, url])


def get_here(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310
        body: bytes = response.read()
        return body.decode()


def ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=False)  # noqa: S603, S607


def namespaces() -> list[str]:
    listed = ip("netns", "list")
    assert listed.returncode == 0, listed.stderr
    return [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]


@pytest.fixture
def machine_server(tmp_path: Path) -> Iterator[int]:
    """An HTTP server of the test's own process on 0.0.0.0; yields its port."""
    (tmp_path / "index.html").write_text("machine\n")

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("0.0.0.0", 0), Handler)  # noqa: S104
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_each_namespace_reaches_its_own_server_and_the_machine_not_the_others(
    machine_server: int,
) -> None:
    with netns_hosts(2) as (a, b):
        assert a.name != b.name and a.ip != b.ip and a.host_ip != b.host_ip
        routes = a.run(["ip", "-4", "route", "show"]).stdout.splitlines()
        assert len(routes) == 1 and routes[0].startswith(a.ip.rsplit(".", 1)[0]), routes
        assert not any(r.startswith("default") for r in routes)

        port = free_port()
        serve_http_in(a, port)
        url = f"http://{a.ip}:{port}/"

        from_a = get_from(a, url)
        assert from_a.returncode == 0, from_a.stderr
        assert a.name in from_a.stdout

        started = time.monotonic()
        from_b = get_from(b, url)
        assert from_b.returncode != 0, from_b.stdout
        assert "unreachable" in from_b.stderr, from_b.stderr
        assert time.monotonic() - started < 5

        assert a.name in get_here(url)

        for host in (a, b):
            done = get_from(host, f"http://{host.host_ip}:{machine_server}/")
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip() == "machine"
        # a server on the machine's loopback only is out of reach (watchpost serve's default)
        with socket.create_server(("127.0.0.1", 0)) as loopback:
            refused = get_from(a, f"http://{a.host_ip}:{loopback.getsockname()[1]}/")
        assert refused.returncode != 0 and "refused" in refused.stderr, refused.stderr
        names = [a.name, b.name]
        veths = [a.veth, b.veth]

    assert not set(names) & set(namespaces())
    for veth in veths:
        assert ip("link", "show", veth).returncode != 0


def test_sigkill_of_a_process_group_started_in_a_namespace(
    make_hosts: Callable[[int], list[Host]],
) -> None:
    (host,) = make_hosts(1)
    # a shell with a child: both are in the process group, and both go
    process = host.popen(["sh", "-c", "sleep 300 & wait"])
    deadline = time.monotonic() + 5
    while len(host.pids()) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.pid in host.pids() and len(host.pids()) == 2

    os.killpg(process.pid, signal.SIGKILL)
    assert process.wait(timeout=5) == -signal.SIGKILL
    deadline = time.monotonic() + 5
    while host.pids() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert host.pids() == []


def test_teardown_kills_what_still_runs_in_the_namespaces() -> None:
    with netns_hosts(1) as (host,):
        process = host.popen(["sleep", "300"])
        stray = host.popen(["setsid", "-f", "sleep", "300"])  # in a session of its own
        assert stray.wait(timeout=5) == 0
        name = host.name
    assert process.returncode == -signal.SIGKILL
    assert name not in namespaces()


def test_a_failing_test_still_removes_its_namespaces() -> None:
    names = []
    with pytest.raises(ZeroDivisionError), netns_hosts(2) as hosts:
        names = [host.name for host in hosts]
        1 / 0  # noqa: B018
    assert names and not set(names) & set(namespaces())
