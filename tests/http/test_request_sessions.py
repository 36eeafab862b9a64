"""Each request's database sessions: one connection at a time, all returned when it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI, Request
from sqlalchemy import event, text
from sqlalchemy.exc import InvalidRequestError
from starlette.types import Message

from tests.factories.api import Api, data
from tests.factories.objects import create_collector, target_body
from watchpost.http.deps import ReadDb, RequestSessionsMiddleware, request_sessions


@dataclass
class PoolUse:
    checkouts: int = 0
    held: int = 0
    most_held: int = 0


@contextmanager
def pool_use(app: FastAPI) -> Iterator[PoolUse]:
    use = PoolUse()
    engine = app.state.ctx.db.engine.sync_engine

    def checkout(*_: Any) -> None:
        use.checkouts += 1
        use.held += 1
        use.most_held = max(use.most_held, use.held)

    def checkin(*_: Any) -> None:
        use.held -= 1

    event.listen(engine, "checkout", checkout)
    event.listen(engine, "checkin", checkin)
    try:
        yield use
    finally:
        event.remove(engine, "checkout", checkout)
        event.remove(engine, "checkin", checkin)


async def test_a_read_uses_one_connection_for_the_token_and_the_data(
    api: Api, app: FastAPI
) -> None:
    await create_collector(api)
    with pool_use(app) as use:
        assert (await api.get("/api/v1/collectors")).status_code == 200
    assert (use.checkouts, use.most_held, use.held) == (1, 1, 0)


async def test_a_write_never_holds_two_connections(api: Api, app: FastAPI) -> None:
    collector = await create_collector(api)
    with pool_use(app) as use:
        created = await api.post(
            f"/api/v1/collectors/{collector['id']}/targets", target_body("redis")
        )
        data(created, 201)
    # the token lookup's connection is given back before the write session takes one; the
    # audit entry is written after the change, on a connection of its own (http/audited.py)
    assert (use.checkouts, use.most_held, use.held) == (3, 1, 0)


async def test_connections_come_back_after_errors(api: Api, app: FastAPI) -> None:
    with pool_use(app) as use:
        assert (await api.get("/api/v1/collectors/999999")).status_code == 404
        assert (await api.post("/api/v1/collectors", {"name": 5})).status_code == 422
        assert (await api.post("/api/v1/collectors/999999/targets", {})).status_code == 404
        api_without_token = await api.client.get(
            "/api/v1/collectors", headers={"Authorization": "Bearer wrong"}
        )
        assert api_without_token.status_code == 401
    assert use.checkouts >= 4
    assert use.held == 0
    assert app.state.ctx.db.engine.sync_engine.pool.checkedout() == 0


async def test_a_public_ping_writes_on_one_connection(api: Api, app: FastAPI) -> None:
    heartbeat = data(await api.post("/api/v2/heartbeats", {"name": "nightly"}), 201)
    path = heartbeat["attributes"]["url"].split("testserver", 1)[1]
    # The first ping of a pending heartbeat: the group commit's transaction finds it not up
    # (heartbeats/pings.py record_successes), then the ping's own decides.
    with pool_use(app) as use:
        assert (await api.client.get(path)).status_code == 200
    assert (use.checkouts, use.most_held, use.held) == (2, 1, 0)
    # An up heartbeat's: the group commit's transaction only.
    with pool_use(app) as use:
        assert (await api.client.get(path)).status_code == 200
    assert (use.checkouts, use.most_held, use.held) == (1, 1, 0)


async def test_an_app_without_the_middleware_opens_no_session(app: FastAPI) -> None:
    """Without the middleware nothing would close a session: the dependency refuses."""
    bare = FastAPI()
    bare.state.ctx = app.state.ctx

    @bare.get("/read")
    async def read(db: ReadDb) -> dict[str, str]:
        return {"unreachable": "yes"}

    transport = httpx.ASGITransport(app=bare, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/read")).status_code == 500
    assert app.state.ctx.db.engine.sync_engine.pool.checkedout() == 0


async def test_a_read_session_closed_for_the_write_cannot_take_a_connection_again(
    app: FastAPI,
) -> None:
    """Opening the write session closes the read one for good: an endpoint that went on
    reading with it would hold a connection nothing returns to the pool (until the garbage
    collector found it), so it raises instead, and the pool gets every connection back."""
    bare = FastAPI()
    bare.state.ctx = app.state.ctx
    bare.add_middleware(RequestSessionsMiddleware)
    reused: list[str] = []

    @bare.post("/read-write-read")
    async def read_write_read(request: Request) -> dict[str, int]:
        sessions = request_sessions(request)
        read = await sessions.read()
        before = int(await read.scalar(text("SELECT 1")) or 0)
        write = await sessions.write()
        async with write.begin():
            await write.execute(text("SELECT 1"))
        try:
            await read.scalar(text("SELECT 2"))
        except InvalidRequestError as exc:
            reused.append(str(exc))
        return {"read": before}

    transport = httpx.ASGITransport(app=bare, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.post("/read-write-read")).json() == {"read": 1}
    assert len(reused) == 1 and "closed" in reused[0]
    assert app.state.ctx.db.engine.sync_engine.pool.checkedout() == 0


async def test_the_connection_is_back_before_the_response_is_sent(api: Api, app: FastAPI) -> None:
    # A client reading a long list slowly must not keep a pooled connection from others.
    await create_collector(api)
    held_at: list[tuple[str, int]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    with pool_use(app) as use:

        async def send(message: Message) -> None:
            held_at.append((message["type"], use.held))

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": "/api/v1/collectors",
            "raw_path": b"/api/v1/collectors",
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"test"), (b"authorization", f"Bearer {api.token}".encode())],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        await app(scope, receive, send)
    assert use.checkouts == 1
    assert held_at == [("http.response.start", 0), ("http.response.body", 0)]


def free_permits(semaphore: asyncio.Semaphore) -> int:
    """How many acquire() calls would pass at once (taken and given back)."""
    taken = 0
    while not semaphore.locked():
        semaphore._value -= 1  # what acquire() does when not locked, without awaiting
        taken += 1
    semaphore._value += taken
    return taken


async def test_requests_wait_their_turn_for_a_connection_and_leave_it(
    api: Api, app: FastAPI
) -> None:
    """Database.admission: at most that many requests hold a connection at once (the others
    wait in line there, not in the pool's queue), and every permit comes back, errors too."""
    db = app.state.ctx.db
    whole = free_permits(db.admission)
    assert whole >= 8
    await api.post("/api/v2/heartbeats", {"name": "nightly"})
    db.admission = asyncio.Semaphore(2)
    try:
        with pool_use(app) as use:
            answers = await asyncio.gather(
                *(api.get("/api/v2/heartbeats") for _ in range(20)),
                api.get("/api/v1/collectors/999999"),
                api.client.get("/api/v1/collectors", headers={"Authorization": "Bearer wrong"}),
            )
        assert [answer.status_code for answer in answers] == [200] * 20 + [404, 401]
        assert use.most_held <= 2 and use.held == 0
        assert free_permits(db.admission) == 2
    finally:
        db.admission = asyncio.Semaphore(whole)
