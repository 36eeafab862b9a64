"""`watchpost serve` disconnects a client that has not sent its request head within
WATCHPOST_HEADER_TIMEOUT, on a real server and real sockets, and serves the others."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.factories.processes import Served, cli_env, serve, stop

HEAD = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(
    b"X-Slow-%d: %s\r\n" % (n, b"v" * 20) for n in range(40)
)
DEADLINE_S = 30.0
"""How long a test waits for the server to close a connection: far past the 1 s timeout,
a bound on a broken server, not a measurement."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("head")
    env = cli_env(
        f"sqlite:///{folder / 'watchpost.db'}",
        WATCHPOST_DATA_DIR=str(folder),
        WATCHPOST_HEADER_TIMEOUT="1",
    )
    server = serve(env, folder / "logs")
    try:
        yield server
    finally:
        stop(server)


def _connect(served: Served) -> socket.socket:
    return socket.create_connection(("127.0.0.1", served.port), timeout=DEADLINE_S)


def _closed(sock: socket.socket, wait: float) -> bool:
    """Whether the server closed the connection (EOF or reset) within wait seconds."""
    readable, _, _ = select.select([sock], [], [], wait)
    if not readable:
        return False
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:
        return True


def _trickle(sock: socket.socket, head: bytes) -> int:
    """Sends head a byte at a time, a byte every 0.2 s (the client's pace), until the server
    closes the connection; the bytes it took. The whole head would take 4 minutes."""
    end = time.monotonic() + DEADLINE_S
    for sent, byte in enumerate(head):
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            return sent
        if _closed(sock, 0.2):
            return sent + 1
        assert time.monotonic() < end, "the server kept a slow head's connection open"
    raise AssertionError("the whole head was sent")


def test_a_head_sent_a_byte_at_a_time_is_disconnected(served: Served) -> None:
    with contextlib.closing(_connect(served)) as slow:
        sent = _trickle(slow, HEAD)
    assert sent < len(HEAD)


def test_silent_and_partial_heads_are_disconnected_and_others_served(served: Served) -> None:
    idle = [_connect(served) for _ in range(30)]
    partial = [_connect(served) for _ in range(30)]
    try:
        for sock in partial:
            sock.sendall(HEAD[:20])
        # Meanwhile a client that sends its request at once is answered, again and again.
        with httpx.Client(base_url=served.base) as client:
            for _ in range(3):
                assert client.get("/healthz").status_code == 200
        for sock in idle + partial:
            assert _closed(sock, DEADLINE_S)
    finally:
        for sock in idle + partial:
            sock.close()


def test_the_next_head_on_a_kept_alive_connection_has_the_same_deadline(
    served: Served,
) -> None:
    with contextlib.closing(_connect(served)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
            chunk = sock.recv(65536)
            assert chunk, answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200")
        sent = _trickle(sock, HEAD)
    assert sent < len(HEAD)
