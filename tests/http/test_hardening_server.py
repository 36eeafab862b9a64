"""Hardening of the server itself, against real servers and real sockets: unhandled errors,
request body limits, database outages, a busy port, and the offline /docs and /redoc pages."""

from __future__ import annotations

import contextlib
import http.client
import logging
import shutil
import socket
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI, Request

from tests.conftest import TEST_SECRET_KEY, Backend, postgres_schema
from tests.factories.processes import (
    TcpProxy,
    cli_env,
    run_cli,
    run_cli_in_process,
    serve,
    stop,
    target_of,
    uvicorn_thread,
    via,
)
from tests.factories.servers import free_port
from watchpost.app import create_app
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.db.outage import RETRY_AFTER_S
from watchpost.engine.loop import OUTAGE_BACKOFF_MAX_S, Engine
from watchpost.http.body import MAX_BODY_BYTES
from watchpost.settings import Settings

Action = Callable[[], object]
MIB = 1024 * 1024
BIG = 200 * MIB


class Records(logging.Handler):
    """Every log record of the process while installed on the root logger."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def tracebacks(self) -> list[logging.LogRecord]:
        return [record for record in self.records if record.exc_info]

    def at_least(self, level: int) -> list[logging.LogRecord]:
        return [record for record in self.records if record.levelno >= level]


@contextlib.contextmanager
def recording() -> Iterator[Records]:
    handler = Records()
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def token_for(env: dict[str, str]) -> dict[str, str]:
    created = run_cli_in_process(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    return {"Authorization": f"Bearer {created.stdout.strip()}"}


# ------------------------------------------------------------------ unhandled errors

PING_SECRET = "tok-unhandled-error-secret"


def failing_app(folder: Path) -> FastAPI:
    """A real app plus one route that fails the way an unforeseen bug would; its path sits
    under the ping prefix, whose token segment the logs must mask."""
    app = create_app(
        Settings(
            database_url=f"sqlite:///{folder / 'watchpost.db'}",
            secret_key=TEST_SECRET_KEY,
            data_dir=folder,
        )
    )

    async def explode(token: str, request: Request) -> None:
        raise RuntimeError(f"cannot handle {request.url.path}")

    app.add_api_route("/api/v1/heartbeat/{token}/explode", explode, methods=["GET"])
    # First in line: the ping route `/{token}/{exit_code}` takes any second segment.
    app.router.routes.insert(0, app.router.routes.pop())
    return app


def test_an_unhandled_error_is_one_json_500_one_traceback_and_the_connection_lives_on(
    tmp_path: Path,
) -> None:
    with uvicorn_thread(failing_app(tmp_path)) as base, recording() as logs:
        conn = http.client.HTTPConnection("127.0.0.1", int(base.rsplit(":", 1)[1]), timeout=10)
        conn.request("GET", f"/api/v1/heartbeat/{PING_SECRET}/explode")
        first = conn.getresponse()
        body = first.read()
        local = conn.sock.getsockname() if conn.sock else None
        assert first.status == 500
        assert first.getheader("content-type") == "application/json"
        assert body == b'{"errors":"Internal server error"}'
        # the same connection answers the next request: it was neither reset nor closed
        conn.request("GET", "/openapi.json")
        second = conn.getresponse()
        assert second.status == 200
        second.read()
        assert conn.sock is not None and conn.sock.getsockname() == local
        conn.close()
    tracebacks = logs.tracebacks()
    assert len(tracebacks) == 1, [r.getMessage() for r in tracebacks]
    shown = logs.format(tracebacks[0])
    assert "RuntimeError" in shown and "[redacted]" in shown
    assert all(PING_SECRET not in logs.format(record) for record in logs.records)


# ------------------------------------------------------------------ request body limits


def chunks(total: int, size: int = MIB) -> Iterator[bytes]:
    """total bytes of JSON whitespace, one reused buffer: the test holds 1 MiB, not 200."""
    block = b" " * size
    for _ in range(total // size):
        yield block


def headers_only(port: int, request: bytes) -> bytes:
    """Send a request's head and no body; the server's answer (head and body) as received."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        sock.sendall(request)
        received = b""
        while b"\r\n\r\n" not in received or not received.rstrip().endswith(b"}"):
            piece = sock.recv(65536)
            if not piece:
                break
            received += piece
        return received


def json_head(method: str, path: str, headers: dict[str, str], length: int) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def body_routes(openapi: dict[str, object]) -> list[tuple[str, str]]:
    """(method, path) of every documented operation that takes a JSON body."""
    found = []
    paths = openapi["paths"]
    assert isinstance(paths, dict)
    for path, operations in paths.items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                found.append((method.upper(), path))
    return found


def test_large_bodies_are_refused_without_being_held_in_memory(tmp_path: Path) -> None:
    env = cli_env(f"sqlite:///{tmp_path / 'watchpost.db'}", WATCHPOST_DATA_DIR=str(tmp_path))
    auth = token_for(env)
    served = serve(env, tmp_path / "logs")
    try:
        base = served.base
        made = httpx.post(f"{base}/api/v2/heartbeats", json={"name": "nightly"}, headers=auth)
        assert made.status_code == 201, made.text
        ping = made.json()["data"]["attributes"]["url"].split(str(served.port), 1)[1]
        # Warm up: a body just under the limit is read and refused for its content, not size.
        near = b'{"url": "https://example.com", "pronounceable_name": "' + b"x" * (MIB - 100)
        near += b'"}'
        assert len(near) <= MAX_BODY_BYTES
        warm = httpx.post(f"{base}/api/v2/monitors", content=near, headers=auth | JSON)
        assert warm.status_code == 422, warm.text
        before = served.peak_rss_kib()

        # a declared length over the limit: refused at once, before any byte of the body
        answer = headers_only(served.port, json_head("POST", "/api/v2/monitors", auth, BIG))
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert answer.endswith(b'{"errors":"Request body is larger than 1048576 bytes (1 MiB)."}')

        for label, extra in (("chunked", {}), ("content-length", {"Content-Length": str(BIG)})):
            refused = httpx.post(
                f"{base}/api/v2/monitors",
                content=chunks(BIG),
                headers=auth | JSON | extra,
                timeout=120,
            )
            assert refused.status_code == 413, (label, refused.text)
            assert refused.json() == {
                "errors": f"Request body is larger than {MAX_BODY_BYTES} bytes (1 MiB)."
            }

        # a failure ping keeps the first 10 KiB of its output and reads no more than that
        failed = httpx.post(f"{base}{ping}/fail", content=chunks(BIG), timeout=120)
        assert failed.status_code == 200, failed.text
        after = served.peak_rss_kib()
        assert after - before < 8 * 1024, f"peak RSS grew from {before} KiB to {after} KiB"

        # every route that takes a JSON body refuses an oversized one by its declared length
        routes = body_routes(httpx.get(f"{base}/openapi.json").json())
        assert len(routes) >= 20
        for method, path in routes:
            target = path.replace("{", "").replace("}", "")
            target = "/".join("1" if part.endswith("id") else part for part in target.split("/"))
            answer = headers_only(served.port, json_head(method, target, auth, BIG))
            assert answer.startswith(b"HTTP/1.1 413 "), (method, path, answer[:200])
    finally:
        stop(served)


JSON = {"Content-Type": "application/json"}


# ------------------------------------------------------------------ database outages


def unreachable_lines(lines: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(outage lines, recovery lines, traceback lines) of a server's log."""
    return (
        [line for line in lines if "database unreachable" in line],
        [line for line in lines if "database reachable again" in line],
        [line for line in lines if "Traceback" in line],
    )


@contextlib.contextmanager
def outage_setup(name: str, tmp_path: Path) -> Iterator[tuple[dict[str, str], Action, Action]]:
    """(env, cut, restore) for a backend: cut() makes its database unreachable for the
    server, restore() brings it back. SQLite: the folder of the file is moved away (no
    connection is open yet: the server runs without engine). PostgreSQL: the server reaches
    it through a TCP proxy that is shut down, dropping every open connection."""
    if name == "sqlite":
        folder = tmp_path / "db"
        folder.mkdir()
        env = cli_env(f"sqlite:///{folder / 'watchpost.db'}", WATCHPOST_DATA_DIR=str(folder))
        away = tmp_path / "db-away"
        yield env, lambda: folder.rename(away), lambda: away.rename(folder)
        return
    with postgres_schema("wp_outage") as url:
        proxy = TcpProxy(target_of(url))
        proxy.up()
        try:
            env = cli_env(via(url, proxy.port), WATCHPOST_DATA_DIR=str(tmp_path / "data"))
            yield env, proxy.down, proxy.up
        finally:
            proxy.down()


@pytest.mark.parametrize("name", ["sqlite", "postgres"])
def test_an_unreachable_database_is_a_503_and_two_log_lines(name: str, tmp_path: Path) -> None:
    with outage_setup(name, tmp_path) as (env, cut, restore):
        auth = token_for(env)
        # PostgreSQL: the whole `serve`, engine included, whose loop must not log per pass
        served = serve(env, tmp_path / "logs", engine=name == "postgres", ready_path="/docs")
        try:
            base = served.base
            cut()
            for _ in range(30):
                answer = httpx.get(f"{base}/api/v2/monitors", headers=auth, timeout=30)
                assert answer.status_code == 503, answer.text
                assert answer.headers["retry-after"] == str(RETRY_AFTER_S)
                assert answer.json() == {"errors": "The database is unavailable. Retry later."}
            created = httpx.post(f"{base}/api/v2/heartbeats", json={"name": "x"}, headers=auth)
            assert created.status_code == 503
            health = httpx.get(f"{base}/healthz", timeout=30)
            assert health.status_code == 503
            assert health.headers["retry-after"] == str(RETRY_AFTER_S)
            restore()
            assert httpx.get(f"{base}/api/v2/monitors", headers=auth).status_code == 200
            assert httpx.get(f"{base}/healthz").status_code == 200
        finally:
            stop(served)
    outage, recovery, tracebacks = unreachable_lines(served.log_lines())
    assert tracebacks == [], served.log_lines()[-20:]
    assert len(outage) == 1, outage
    assert len(recovery) == 1, recovery


def test_a_server_started_on_an_unreachable_postgres_answers_503(tmp_path: Path) -> None:
    url = f"postgresql://root@127.0.0.1:{free_port()}/test"  # nothing listens there
    app = create_app(Settings(database_url=url, secret_key=TEST_SECRET_KEY, data_dir=tmp_path))
    with uvicorn_thread(app) as base, recording() as logs:
        for _ in range(20):
            answer = httpx.get(f"{base}/api/v2/monitors", headers={"Authorization": "Bearer x"})
            assert answer.status_code == 503, answer.text
            assert answer.headers["retry-after"] == str(RETRY_AFTER_S)
        assert httpx.get(f"{base}/healthz").status_code == 503
    assert logs.tracebacks() == []
    assert [r.getMessage()[:20] for r in logs.at_least(logging.WARNING)] == ["database unreachable"]


@contextlib.contextmanager
def engine_outage(backend: Backend, tmp_path: Path) -> Iterator[tuple[Engine, Action, Action]]:
    """(engine, cut, restore) on the test's backend, as outage_setup does for servers."""
    if backend.template is not None:
        folder = tmp_path / "db"
        folder.mkdir()
        shutil.copyfile(backend.template, folder / "watchpost.db")
        url = f"sqlite:///{folder / 'watchpost.db'}"
        away = tmp_path / "db-away"
        cut: Action = lambda: folder.rename(away)  # noqa: E731
        restore: Action = lambda: away.rename(folder)  # noqa: E731
        proxy = None
    else:
        proxy = TcpProxy(target_of(backend.url))
        proxy.up()
        url, cut, restore = via(backend.url, proxy.port), proxy.down, proxy.up
    settings = Settings(database_url=url, secret_key=TEST_SECRET_KEY, data_dir=tmp_path)
    ctx = AppContext.build(settings, FrozenClock())
    try:
        yield Engine(ctx, runners={}), cut, restore
    finally:
        if proxy is not None:
            proxy.down()


async def test_the_engine_logs_an_outage_once_and_backs_off(
    backend: Backend, tmp_path: Path
) -> None:
    with engine_outage(backend, tmp_path) as (engine, cut, restore):
        poll = engine.settings.engine_poll_interval
        try:
            assert await engine.cycle() <= poll  # reachable: a normal pass
            cut()
            # An open SQLite file stays usable after its folder moves: new connections are
            # what fail, as after a restart or a pool recycle.
            await engine.ctx.db.engine.dispose()
            with recording() as logs:
                waits = [await engine.cycle() for _ in range(7)]
            assert waits == [min(poll * 2**n, OUTAGE_BACKOFF_MAX_S) for n in range(1, 8)]
            assert logs.tracebacks() == []
            assert [r.getMessage()[:20] for r in logs.at_least(logging.WARNING)] == [
                "database unreachable"
            ]
            restore()
            with recording() as logs:
                assert await engine.cycle() <= poll
                assert await engine.cycle() <= poll
            assert [r.getMessage()[:24] for r in logs.at_least(logging.WARNING)] == [
                "database reachable again"
            ]
        finally:
            await engine.ctx.db.dispose()


# ------------------------------------------------------------------ a busy port


def test_serve_on_a_busy_port_fails_at_once_with_one_line(tmp_path: Path) -> None:
    database = tmp_path / "watchpost.db"
    env = cli_env(f"sqlite:///{database}", WATCHPOST_DATA_DIR=str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli(env, "serve", "--port", str(port))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"watchpost: error: serve: 127.0.0.1:{port} is already in use"
    ]
    assert not database.exists()  # nothing ran before the address was taken: no migration


# ------------------------------------------------------------------ offline /docs and /redoc


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in ("src", "href") and value]


CONTENT_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


async def test_docs_and_redoc_load_nothing_from_outside(shared_app: FastAPI) -> None:
    transport = httpx.ASGITransport(app=shared_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        for page in ("/docs", "/redoc"):
            html = await client.get(page)
            assert html.status_code == 200
            assert html.headers["content-type"].startswith("text/html")
            for outside in ("http://", "https://", "//", "googleapis", "jsdelivr", "unpkg"):
                assert outside not in html.text, (page, outside)
            parser = Links()
            parser.feed(html.text)
            assert len(parser.urls) >= 2, parser.urls
            for url in parser.urls:
                assert url.startswith("/") and not url.startswith("//"), url
                asset = await client.get(url)
                assert asset.status_code == 200, url
                expected = CONTENT_TYPES[Path(url).suffix]
                assert asset.headers["content-type"].startswith(expected), url
                assert len(asset.content) > 100, url
        spec = await client.get("/openapi.json")
        assert spec.status_code == 200
        assert "/docs" not in spec.json()["paths"]
