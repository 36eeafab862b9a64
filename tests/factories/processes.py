"""The real `watchpost` command in subprocesses (`run_cli`, and `watchpost serve` with its logs
in files), Python snippets in fresh interpreters (`run_python`), the same command run in the test's process (`run_cli_in_process`), an in-process
uvicorn server on an ephemeral port, and a TCP proxy that can cut a
server off from its database."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock
from urllib.parse import urlsplit, urlunsplit

import httpx
import uvicorn
from fastapi import FastAPI

import watchpost
from tests.factories.servers import free_port

SRC = str(Path(watchpost.__file__).resolve().parents[1])


def cli_env(database_url: str, **extra: str) -> dict[str, str]:
    """The environment of a `watchpost` subprocess: none of ours, this database, extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHPOST_")}
    env["PYTHONPATH"] = SRC
    env["WATCHPOST_DATABASE_URL"] = database_url
    env.update(extra)
    return env


def run_python(
    code: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`code` run by a fresh interpreter (with args as sys.argv[1:]): what a new process
    loads, holds or prints."""
    return subprocess.run(  # noqa: S603  (this interpreter, the test's own code)
        [sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        [sys.executable, "-m", "watchpost.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_cli_in_process(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """What run_cli(env, *args) gives, from watchpost.cli.main called in this process: for the
    tests about what a command does rather than about the process (a subprocess costs
    ≈ 0.8 s of CPU, most of it imports). The environment is env for the call; stdout and
    stderr are captured, and warnings logged go to stderr as they would in a process with no
    logging set up (logging's last resort handler: WARNING and above, the message alone)."""
    from watchpost.cli import main

    out, err = io.StringIO(), io.StringIO()
    last_resort = logging.StreamHandler(err)
    last_resort.setLevel(logging.WARNING)
    code: list[int] = []

    def call() -> None:
        root = logging.getLogger()
        root.addHandler(last_resort)
        try:
            with (
                mock.patch.dict(os.environ, env, clear=True),
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(err),
            ):
                code.append(main(list(args)))
        finally:
            root.removeHandler(last_resort)

    try:
        asyncio.get_running_loop()
    except RuntimeError:  # no loop here: the command may run its own
        call()
    else:  # called from a coroutine: the command's asyncio.run() needs a thread of its own
        thread = threading.Thread(target=call)
        thread.start()
        thread.join()
    assert code, err.getvalue()
    return subprocess.CompletedProcess(
        ["watchpost", *args], code[0], stdout=out.getvalue(), stderr=err.getvalue()
    )


@dataclass
class Served:
    """A `watchpost serve` subprocess; its stdout (access log) and stderr in files."""

    process: subprocess.Popen[bytes]
    port: int
    stderr: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_lines(self) -> list[str]:
        return self.stderr.read_text(errors="replace").splitlines()

    def peak_rss_kib(self) -> int:
        """VmHWM: the most resident memory the process has ever used."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise AssertionError("no VmHWM in /proc status")


def serve(
    env: dict[str, str],
    folder: Path,
    *,
    engine: bool = False,
    ready_path: str = "/healthz",
    host: str = "127.0.0.1",
    port: int | None = None,
) -> Served:
    """Start `watchpost serve` on `port` (a free one by default), listening on `host`; ready
    once ready_path answers 200 (asked on 127.0.0.1)."""
    port = port or free_port()
    folder.mkdir(parents=True, exist_ok=True)
    stderr = folder / f"serve-{port}.stderr"
    args = ["serve", "--host", host, "--port", str(port), *([] if engine else ["--no-engine"])]
    with (folder / f"serve-{port}.stdout").open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(  # noqa: S603
            [sys.executable, "-m", "watchpost.cli", *args], env=env, stdout=out, stderr=err
        )
    served = Served(process, port, stderr)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError("\n".join(served.log_lines()))
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(served.base + ready_path, timeout=2).status_code == 200:
                return served
        time.sleep(0.1)
    process.kill()
    raise AssertionError("server did not become ready")


def via(url: str, port: int) -> str:
    """url with its host and port replaced by 127.0.0.1:port (a TcpProxy's)."""
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{port}"))


def target_of(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 5432


def stop(served: Served) -> None:
    if served.process.poll() is None:
        served.process.terminate()
        try:
            served.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait()


@contextlib.contextmanager
def uvicorn_thread(app: FastAPI) -> Iterator[str]:
    """app served by a real uvicorn on an ephemeral port, in a thread; yields its base URL.

    log_config=None: uvicorn's records reach the root logger, where tests count them.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@dataclass
class TcpProxy:
    """Forwards 127.0.0.1:<port> to target. `down()` closes the listener and every open
    connection (the database is gone for whoever used it); `up()` listens again."""

    target: tuple[str, int]
    port: int = field(default_factory=free_port)
    _listener: socket.socket | None = None
    _open: set[socket.socket] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        with self._lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)
