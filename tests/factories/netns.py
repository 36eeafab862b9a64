"""Network namespaces for the tests that need other network locations on one machine.

Each Host is a namespace joined to the machine by a veth pair of its own, on a /30 taken from
10.213.0.0/16: the machine side is host_ip (x.x.x.1), the namespace side ip (x.x.x.2). The
namespace has `lo` and that /30 and no other route, and the machine does not forward, so a
namespace reaches the machine's servers bound to 0.0.0.0 or to its host_ip (not 127.0.0.1),
and nothing of another namespace. The machine reaches every namespace's ip.

Making namespaces needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN) and the `ip` command; without them the test
skips, or fails under WATCHPOST_REQUIRE_SERVICES=1. Tests using them carry
@pytest.mark.xdist_group("netns"). make_hosts is a fixture: a test folder's conftest.py
imports it (from tests.factories.netns import make_hosts  # noqa: F401).
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

from tests.factories.servers import unavailable

NETWORK = ipaddress.IPv4Network("10.213.0.0/16")
SLOTS = NETWORK.num_addresses // 4  # the /30s of NETWORK
LOCK_FILE = Path(tempfile.gettempdir()) / "watchpost-netns.lock"
RUN_TIMEOUT = 30.0
READY_TIMEOUT = 10.0
NEEDS = "network namespaces need root with CAP_SYS_ADMIN and CAP_NET_ADMIN"

_counter = itertools.count()

Output = int | IO[Any] | None


@dataclass
class Host:
    """One network namespace: `ip` is its address, `host_ip` the machine's end of its veth."""

    name: str
    ip: str
    host_ip: str
    veth: str  # the machine's end of the pair; the namespace's end is eth0
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list, repr=False)
    folders: list[Path] = field(default_factory=list, repr=False)

    def exec_args(self, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", self.name, *argv]

    def popen(
        self,
        argv: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        stdout: Output = None,
        stderr: Output = None,
        cwd: str | Path | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start argv in the namespace, in a process group of its own (its pid is the group's),
        killed at teardown if still running."""
        process = subprocess.Popen(  # noqa: S603
            self.exec_args(argv),
            env=env,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def run(
        self, argv: Sequence[str], *, env: dict[str, str] | None = None, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run argv in the namespace to its end (30 s at most), output captured as text."""
        return subprocess.run(  # noqa: S603
            self.exec_args(argv),
            env=env,
            input=input,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )

    def pids(self) -> list[int]:
        """The processes in the namespace."""
        out = _ip("netns", "pids", self.name).stdout
        return [int(pid) for pid in out.split()]


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        ["ip", *args],  # noqa: S607
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def _ip_ok(*args: str) -> None:
    done = _ip(*args)
    if done.returncode == 0:
        return
    failure = f"ip {' '.join(args)}: {done.stderr.strip()}"
    if "Operation not permitted" in done.stderr or "Permission denied" in done.stderr:
        unavailable(f"{NEEDS}: {failure}")
    raise RuntimeError(failure)


def _used_slots() -> set[int]:
    """The /30s of NETWORK that addresses of the machine are in."""
    used = set()
    for line in _ip("-4", "-o", "addr", "show").stdout.splitlines():
        parts = line.split()
        if "inet" not in parts:
            continue
        address = ipaddress.IPv4Interface(parts[parts.index("inet") + 1]).ip
        if address in NETWORK:
            used.add((int(address) - int(NETWORK.network_address)) // 4)
    return used


@contextlib.contextmanager
def _allocation_lock() -> Iterator[None]:
    """Serializes picking a /30 and claiming it, across xdist workers and concurrent runs."""
    with LOCK_FILE.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _check_available() -> None:
    if shutil.which("ip") is None:
        unavailable("network namespaces: the `ip` command (iproute2) is not installed")


def _add_namespace() -> tuple[str, str]:
    """A new empty namespace wp<pid>n<k> and the name for its veth, wp<pid>v<k>; k counts on
    past names taken (a run killed before its teardown leaves its namespaces)."""
    for _ in range(100):
        pid, k = os.getpid(), next(_counter)
        name, veth = f"wp{pid}n{k}", f"wp{pid}v{k}"
        assert len(veth) <= 15, veth  # the kernel's limit on interface names
        done = _ip("netns", "add", name)
        if done.returncode == 0:
            return name, veth
        if "File exists" not in done.stderr:
            unavailable(f"{NEEDS}: ip netns add {name}: {done.stderr.strip()}")
    raise RuntimeError("no free network namespace name")


def _connect(name: str, veth: str, hosts: list[Host]) -> Host:
    """Join namespace `name` to the machine by a veth pair on a free /30; the Host is appended
    to hosts as soon as its veth exists, so teardown finds it."""
    with _allocation_lock():
        used = _used_slots()
        start = (os.getpid() * 61) % SLOTS
        slot = next((s for s in ((start + i) % SLOTS for i in range(SLOTS)) if s not in used), None)
        if slot is None:
            raise RuntimeError(f"no free /30 left in {NETWORK}")
        base = int(NETWORK.network_address) + 4 * slot
        host_ip, ip = str(ipaddress.IPv4Address(base + 1)), str(ipaddress.IPv4Address(base + 2))
        _ip_ok("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", name)
        host = Host(name=name, ip=ip, host_ip=host_ip, veth=veth)
        hosts.append(host)
        _ip_ok("addr", "add", f"{host_ip}/30", "dev", veth)
    _ip_ok("link", "set", veth, "up")
    _ip_ok("-n", name, "addr", "add", f"{ip}/30", "dev", "eth0")
    _ip_ok("-n", name, "link", "set", "eth0", "up")
    _ip_ok("-n", name, "link", "set", "lo", "up")
    return host


def _kill_all(host: Host) -> None:
    """SIGKILL the processes started in the namespace, then whatever else is still in it."""
    for process in host.processes:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    for process in host.processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while (pids := host.pids()) and time.monotonic() < deadline:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)


def _remove(name: str, host: Host | None) -> list[str]:
    """Tear one namespace down; the problems met, if any."""
    problems = []
    if host is not None:
        _kill_all(host)
        if leftover := host.pids():
            problems.append(f"{name}: processes {leftover} survived SIGKILL")
        deleted = _ip("link", "del", host.veth)
        if deleted.returncode != 0 and "Cannot find device" not in deleted.stderr:
            problems.append(f"ip link del {host.veth}: {deleted.stderr.strip()}")
        for folder in host.folders:
            shutil.rmtree(folder, ignore_errors=True)
    deleted = _ip("netns", "del", name)
    if deleted.returncode != 0:
        problems.append(f"ip netns del {name}: {deleted.stderr.strip()}")
    return problems


def wait_for_tcp(
    address: tuple[str, int],
    process: subprocess.Popen[bytes] | None = None,
    timeout: float = READY_TIMEOUT,
) -> None:
    """Return once something accepts connections at address; fail if process ends first or
    the deadline passes."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(address, timeout=1):
                return
        except OSError as exc:
            if process is not None and process.poll() is not None:
                raise AssertionError(
                    f"{process.args!r} exited ({process.returncode}) before accepting "
                    f"connections at {address[0]}:{address[1]}"
                ) from exc
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"nothing accepted connections at {address[0]}:{address[1]} "
                    f"within {timeout} s: {exc}"
                ) from exc
        time.sleep(0.02)


def serve_http_in(host: Host, port: int) -> subprocess.Popen[bytes]:
    """`python -m http.server` on host.ip:port inside the namespace, serving an index.html that
    names the host; returns once it accepts connections. Its log is server.log beside it."""
    folder = Path(tempfile.mkdtemp(prefix=f"{host.name}-http-"))
    host.folders.append(folder)
    (folder / "index.html").write_text(f"<p>{host.name}</p>\n")
    with (folder / "server.log").open("wb") as log:
        process = host.popen(
            [
                sys.executable,
                "-m",
                "http.server",
                "--bind",
                host.ip,
                "--directory",
                str(folder),
                str(port),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder,
        )
    wait_for_tcp((host.ip, port), process)
    return process


@contextlib.contextmanager
def netns_hosts(count: int) -> Iterator[list[Host]]:
    """count new namespaces, each joined to the machine; all removed on exit, processes in
    them killed."""
    _check_available()
    hosts: list[Host] = []
    names: list[str] = []
    try:
        for _ in range(count):
            name, veth = _add_namespace()
            names.append(name)
            _connect(name, veth, hosts)
        yield list(hosts)
    finally:
        by_name = {host.name: host for host in hosts}
        problems = [p for name in names for p in _remove(name, by_name.get(name))]
        if problems:
            raise RuntimeError("network namespace teardown: " + "; ".join(problems))


@pytest.fixture
def make_hosts() -> Iterator[Callable[[int], list[Host]]]:
    """make_hosts(count): count new namespaces, removed after the test."""
    with contextlib.ExitStack() as stack:
        yield lambda count: stack.enter_context(netns_hosts(count))
