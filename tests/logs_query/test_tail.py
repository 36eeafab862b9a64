"""GET /api/v1/tail: Server-Sent Events from a real server as events arrive, rendered with
the source's live_tail_pattern; late events from other processes, disconnects, limits."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.served import serving
from tests.logs_query.conftest import Recorded
from tests.logs_query.events import log_event, new_source
from watchpost.logs.events import LogEvent, new_event_ids
from watchpost.logs.store import LogStore, Search
from watchpost.logsearch import tail

TAIL = "/api/v1/tail"


@dataclass
class Stream:
    lines: AsyncIterator[str]
    comments: list[str] = field(default_factory=list)

    async def next_event(self, timeout: float = 10) -> dict[str, Any]:
        """The next `log` event (id and data), comments kept aside."""
        event: dict[str, Any] = {}
        async with asyncio.timeout(timeout):
            async for line in self.lines:
                if line.startswith(":"):
                    self.comments.append(line)
                elif line.startswith("id: "):
                    event["id"] = int(line[4:])
                elif line.startswith("event: "):
                    event["event"] = line[7:]
                elif line.startswith("data: "):
                    event["data"] = orjson.loads(line[6:])
                elif line == "" and "data" in event:
                    return event
        raise AssertionError("the stream ended")

    async def next_comment(self, text: str, timeout: float = 10) -> None:
        async with asyncio.timeout(timeout):
            async for line in self.lines:
                if line.startswith(":") and text in line:
                    return
        raise AssertionError("the stream ended")


@asynccontextmanager
async def tailing(app: FastAPI, url: str, api: Api, **params: str) -> AsyncIterator[Stream]:
    """A tail of the API's team. An event appended later than LAG_S seconds after its id was
    taken may be missed by design: the store is connected before (on a loaded machine the
    first append, which connects, can take longer than that)."""
    store: LogStore = app.state.ctx.logs
    await store.search(Search(source_ids=[1], limit=1))
    async with (
        httpx.AsyncClient(base_url=url, timeout=10) as client,
        client.stream("GET", TAIL, params=params, headers=api.headers) as response,
    ):
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = Stream(response.aiter_lines())
        await stream.next_comment("tailing")  # the tail has started: later events are sent
        yield stream


def event(source: int, api: Api, body: dict[str, Any]) -> LogEvent:
    return log_event(source, api.team_id, datetime.now(UTC), body)


async def test_events_arrive_rendered(app: FastAPI, api: Api, store: Recorded) -> None:
    plain = await new_source(api, "plain")
    custom = await new_source(
        api, "custom", live_tail_pattern="[{context.host}] {message} {missing}"
    )
    async with serving(app) as url, tailing(app, url, api) as stream:
        first = event(plain, api, {"message": "hello", "level": "info"})
        await store.append([first])
        got = await stream.next_event()
        assert got["id"] == first.id and got["event"] == "log"
        assert got["data"]["line"] == "info hello"
        assert got["data"]["source_id"] == str(plain)
        assert got["data"]["event"] == {"message": "hello", "level": "info"}
        second = event(custom, api, {"message": "hi", "context": {"host": "web-1"}})
        await store.append([second])
        got = await stream.next_event()
        assert got["data"]["line"] == "[web-1] hi "


async def test_query_filters_the_tail(app: FastAPI, api: Api, store: Recorded) -> None:
    source = await new_source(api)
    async with serving(app) as url, tailing(app, url, api, query="level:error -ignored") as stream:
        await store.append(
            [
                event(source, api, {"message": "fine", "level": "info"}),
                event(source, api, {"message": "ignored", "level": "error"}),
                event(source, api, {"message": "broken", "level": "error"}),
            ]
        )
        got = await stream.next_event()
        assert got["data"]["event"]["message"] == "broken"


async def test_late_events_come_once(app: FastAPI, api: Api, store: Recorded) -> None:
    """Another process took the lower id but appended after: it is sent, and nothing twice."""
    source = await new_source(api)
    async with serving(app) as url, tailing(app, url, api) as stream:
        low, high = new_event_ids(2)
        at = datetime.now(UTC)
        late = LogEvent(
            low, source, api.team_id, at, "", "", "late", {"message": "late"}, b'{"message":"late"}'
        )
        early = LogEvent(
            high,
            source,
            api.team_id,
            at,
            "",
            "",
            "early",
            {"message": "early"},
            b'{"message":"early"}',
        )
        await store.append([early])
        assert (await stream.next_event())["id"] == high
        await store.append([late])
        assert (await stream.next_event())["id"] == low
        last = event(source, api, {"message": "last"})
        await store.append([last])
        assert (await stream.next_event())["id"] == last.id  # neither was sent again


@pytest.mark.parametrize("page", [1000, 2])
async def test_nothing_twice_when_the_window_outgrows_its_memory(
    app: FastAPI, api: Api, store: Recorded, monkeypatch: pytest.MonkeyPatch, page: int
) -> None:
    """More events in the re-read window than the tail remembers (MAX_SEEN; 25,000 ids at
    5,000 events/s against 20,000): those it forgot are not read again, so none comes twice;
    also while it reads on behind (a page a poll: the window re-read a page at a time)."""
    monkeypatch.setattr(tail, "MAX_SEEN", 3)
    monkeypatch.setattr(tail, "PAGE", page)
    monkeypatch.setattr(tail, "PAGES_PER_POLL", 1 if page == 2 else tail.PAGES_PER_POLL)
    source = await new_source(api)
    async with serving(app) as url, tailing(app, url, api) as stream:
        burst = [event(source, api, {"message": f"burst {n}"}) for n in range(10)]
        await store.append(burst)
        assert [(await stream.next_event())["id"] for _ in burst] == [e.id for e in burst]
        last = event(source, api, {"message": "last"})
        await store.append([last])
        assert (await stream.next_event())["id"] == last.id  # the next poll re-read the window


async def test_heartbeat(
    app: FastAPI, api: Api, store: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tail, "HEARTBEAT_S", 0.2)
    await new_source(api)
    async with serving(app) as url, tailing(app, url, api) as stream:
        await stream.next_comment("keepalive")


async def test_disconnect_ends_the_tail_and_limit(
    app: FastAPI, api: Api, store: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tail, "TAILS_PER_TEAM", 1)
    monkeypatch.setattr(tail, "HEARTBEAT_S", 3600)  # no write would notice the client leave
    await new_source(api)
    async with serving(app) as url:
        async with tailing(app, url, api):
            assert app.state.log_tails == {api.team_id: 1}
            async with httpx.AsyncClient(base_url=url) as client:
                second = await client.get(TAIL, headers=api.headers)
            assert second.status_code == 429
            assert "Retry-After" in second.headers
        for _ in range(500):  # the server sees the disconnect, then frees the slot
            if not app.state.log_tails:
                break
            await asyncio.sleep(0.02)
        assert not app.state.log_tails
        async with tailing(app, url, api):  # the slot is free again
            pass


async def test_errors_before_streaming(
    app: FastAPI, api: Api, other_api: Api, store: Recorded
) -> None:
    theirs = await new_source(other_api, "theirs")
    assert (await api.get(TAIL, params={"source_ids": str(theirs)})).status_code == 404
    response = await api.get(TAIL, params={"query": '"open'})
    assert response.status_code == 422
    assert response.json()["invalid_attributes"] == ["query"]
    assert (await api.client.get(TAIL)).status_code == 401


def test_render_line() -> None:
    event = {"level": "warn", "message": "disk", "ctx": {"a": [1, 2]}}
    leaves = {"level": "warn", "message": "disk", "ctx.a.0": "1", "ctx.a.1": "2"}
    at = datetime(2026, 1, 1, tzinfo=UTC)
    assert tail.render_line("{level} {message}", event, at, leaves) == "warn disk"
    assert tail.render_line("{ctx.a} {ctx.a.1} {dt}", event, at, leaves) == (
        "[1,2] 2 2026-01-01T00:00:00+00:00"
    )
    assert len(tail.render_line("{message}" * 2000, event, at, leaves)) == tail.MAX_LINE


async def test_a_stopping_server_ends_open_tails(
    app: FastAPI, api: Api, store: Recorded, caplog: pytest.LogCaptureFixture
) -> None:
    """uvicorn waits for open responses when it stops; past its graceful timeout it cancels
    them: the tail then ends cleanly (its slot given back, no traceback logged)."""
    await new_source(api)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_config=None, lifespan="off", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(1500):
        if server.started:
            break
        await asyncio.sleep(0.01)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        async with tailing(app, url, api):
            assert app.state.log_tails == {api.team_id: 1}
            server.should_exit = True
            async with asyncio.timeout(15):
                await asyncio.shield(task)
            for _ in range(500):  # the cancelled response finishes its cleanup
                if not app.state.log_tails:
                    break
                await asyncio.sleep(0.01)
            assert not app.state.log_tails
    finally:
        server.should_exit = True
        await task
        sock.close()
    errors = [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.ERROR and "graceful shutdown exceeded" not in record.msg
    ]
    assert not errors  # neither a traceback nor an unfinished response
