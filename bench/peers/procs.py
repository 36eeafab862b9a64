"""Processes of the peer benchmark: a server and its whole process tree (CPU, resident
memory), started in a folder of its own and stopped with everything it started."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from api_bench import process_cpu_seconds, wait_ready
from engine_bench import read_status_kb


def tree_pids(pid: int) -> list[int]:
    """pid and every process below it (Linux /proc children lists)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                todo += [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU time used so far by the process tree's current members."""
    return sum(process_cpu_seconds(p) or 0.0 for p in tree_pids(pid))


def tree_rss_mb(pid: int) -> float:
    """Resident memory of the whole tree: the sum of each process's VmRSS (pages shared
    between processes count once per process)."""
    return sum((read_status_kb(p, "VmRSS") or 0) for p in tree_pids(pid)) / 1024


class TreeCpu:
    """CPU of a process tree over a window, counting processes that end inside it up to their
    last reading: call sample() now and then during the window."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.start: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.sample()
        self.start = dict(self.last)

    def sample(self) -> None:
        for p in tree_pids(self.pid):
            cpu = process_cpu_seconds(p)
            if cpu is not None:
                self.last[p] = cpu

    def seconds(self) -> float:
        self.sample()
        return sum(cpu - self.start.get(p, 0.0) for p, cpu in self.last.items())


@contextmanager
def running(
    cmd: Sequence[str],
    *,
    env: dict[str, str],
    cwd: Path,
    log: Path,
    ready_url: str,
    stop: int = signal.SIGTERM,
    timeout: float = 120,
) -> Iterator[int]:
    """Start cmd in cwd, yield its pid once ready_url answers 200; on the way out send it
    `stop`, wait, then kill whatever of its tree is left."""
    with log.open("ab") as out:
        proc = subprocess.Popen(list(cmd), env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_ready(proc, ready_url, log, timeout=timeout)
            yield proc.pid
        finally:
            members = tree_pids(proc.pid)
            proc.send_signal(stop)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
            for pid in members[1:]:
                with_retry_kill(pid)


def with_retry_kill(pid: int) -> None:
    """Kill a leftover child of a stopped server, if it is still there."""
    try:
        os.kill(pid, 0)
    except OSError:
        return
    time.sleep(1)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        return
