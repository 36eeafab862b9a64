"""POST / as the hosted ingestion contract has it, on both backends (sources live in the
database): formats, compression, answers, limits, paused sources, rate limits and quotas."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import orjson
import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.log_ingest import (
    MemoryStore,
    create_source,
    json_body,
    logtail_frame,
    msgpack_body,
    ndjson_body,
    send,
)
from watchpost.clock import FrozenClock
from watchpost.logs.ingest_body import MAX_BODY_BYTES


@pytest.fixture
def store(app: FastAPI) -> MemoryStore:
    memory = MemoryStore()
    app.state.ctx.logs = memory
    return memory


async def test_json_object_array_ndjson_and_msgpack_are_stored(
    api: Api, client: httpx.AsyncClient, store: MemoryStore, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api)
    one = {"message": "logs is ready", "nested": {"values": 123}}
    for body, content_type in (
        (json_body(one), "application/json"),
        (json_body([{"message": "A"}, {"message": "B"}]), "application/json"),
        (ndjson_body([{"message": "C"}, {"message": "D"}]), "application/x-ndjson"),
        (msgpack_body([{"message": "E"}, {"message": "F"}]), "application/msgpack"),
    ):
        response = await send(client, token, body, content_type)
        assert response.status_code == 202, response.text
        assert response.content == b""
    assert [event.message for event in store.events] == ["logs is ready", *"ABCDEF"]
    first = store.events[0]
    assert first.source_id == source_id and first.team_id == api.team_id
    assert first.dt == clock.now()  # no dt: the time of receipt
    assert first.attributes["nested.values"] == "123"
    assert orjson.loads(first.raw) == one


async def test_gzip_and_deflate_bodies(
    api: Api, client: httpx.AsyncClient, store: MemoryStore, clock: FrozenClock
) -> None:
    _, token = await create_source(api)
    body = msgpack_body(logtail_frame(3, at=clock.now()))
    assert (await send(client, token, body, "application/msgpack", gzipped=True)).status_code == 202
    deflated = zlib.compress(json_body({"message": "z"}))
    response = await send(client, token, deflated, extra={"Content-Encoding": "deflate"})
    assert response.status_code == 202
    two_members = gzip.compress(b'[{"message": "m1"},') + gzip.compress(b'{"message": "m2"}]')
    response = await send(client, token, two_members, extra={"Content-Encoding": "gzip"})
    assert response.status_code == 202
    assert [event.message for event in store.events][-3:] == ["z", "m1", "m2"]
    assert len(store.events) == 6


async def test_missing_and_unknown_tokens(
    api: Api, client: httpx.AsyncClient, store: MemoryStore
) -> None:
    await create_source(api)
    missing = await client.post("/", content=b"{}", headers={"Content-Type": "application/json"})
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    assert "errors" in missing.json()
    unknown = await send(client, "wps_not-a-token", b"{}")
    assert unknown.status_code == 403 and unknown.json() == {
        "errors": "Unauthorized: no source has this token."
    }
    huge = await send(client, "x" * 1000, b"{}")
    assert huge.status_code == 403
    api_token = await send(client, api.token, b"{}")  # a team API token is no source token
    assert api_token.status_code == 403
    assert store.events == []


async def test_unreadable_bodies_answer_406_and_store_nothing(
    api: Api, client: httpx.AsyncClient, store: MemoryStore
) -> None:
    _, token = await create_source(api)
    for body, content_type, extra in (
        (b'[{"message": "ok"}, {"broken": ', "application/json", {}),
        (b'{"ok": 1}\nnot json', "application/x-ndjson", {}),
        (b"\x92\x81\xa7message", "application/msgpack", {}),
        (b"not gzip at all", "application/json", {"Content-Encoding": "gzip"}),
        (
            gzip.compress(b'{"message": "cut"}')[:-12],
            "application/json",
            {"Content-Encoding": "gzip"},
        ),
    ):
        response = await send(client, token, body, content_type, extra=extra)
        assert response.status_code == 406, (body, response.text)
        assert isinstance(response.json()["errors"], str)
    assert store.events == []


async def test_unsupported_content_type_and_encoding_answer_415(
    api: Api, client: httpx.AsyncClient, store: MemoryStore
) -> None:
    _, token = await create_source(api)
    assert (await send(client, token, b"hello", "text/plain")).status_code == 415
    response = await send(client, token, b"{}", extra={"Content-Encoding": "br"})
    assert response.status_code == 415
    assert store.events == []


async def test_bodies_over_20_mib_decoded_answer_413(
    api: Api, client: httpx.AsyncClient, store: MemoryStore
) -> None:
    _, token = await create_source(api)
    # a gzip bomb: 21 MiB of spaces in a few kB on the wire
    bomb = gzip.compress(b"[" + b" " * (MAX_BODY_BYTES + 1024 * 1024) + b"]")
    assert len(bomb) < 100_000
    response = await send(client, token, bomb, extra={"Content-Encoding": "gzip"})
    assert response.status_code == 413
    assert "size limit" in response.json()["errors"]
    declared = await client.post(
        "/",
        content=b"{}",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Content-Length": str(MAX_BODY_BYTES + 1),
        },
    )
    assert declared.status_code == 413

    async def chunks() -> AsyncIterator[bytes]:  # chunked: no length declared
        piece = b" " * (1024 * 1024)
        yield b"["
        for _ in range(21):
            yield piece
        yield b"]"

    streamed = await client.post(
        "/",
        content=chunks(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert streamed.status_code == 413
    exactly = b"[" + b" " * (MAX_BODY_BYTES - 2) + b"]"
    assert (await send(client, token, exactly)).status_code == 202
    assert store.events == []


async def test_a_paused_source_answers_202_and_keeps_nothing(
    api: Api, client: httpx.AsyncClient, store: MemoryStore, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api, ingesting_paused=True)
    assert (await send(client, token, b'{"message": "dropped"}')).status_code == 202
    assert store.events == []
    response = await api.patch(f"/api/v1/sources/{source_id}", {"ingesting_paused": False})
    assert response.status_code == 200
    clock.advance(11)  # past the token cache's time
    assert (await send(client, token, b'{"message": "kept"}')).status_code == 202
    assert [event.message for event in store.events] == ["kept"]


async def test_a_deleted_source_stops_ingesting_once_its_lookup_expires(
    api: Api, client: httpx.AsyncClient, store: MemoryStore, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api)
    assert (await send(client, token, b"{}")).status_code == 202
    assert (await api.delete(f"/api/v1/sources/{source_id}")).status_code == 204
    clock.advance(11)
    assert (await send(client, token, b"{}")).status_code == 403


async def test_events_older_than_the_retention_are_dropped_on_arrival(
    api: Api, client: httpx.AsyncClient, store: MemoryStore, clock: FrozenClock
) -> None:
    _, token = await create_source(api, logs_retention=3)
    old = (clock.now() - timedelta(days=4)).isoformat()
    recent = (clock.now() - timedelta(days=2)).isoformat()
    body = json_body([{"dt": old, "message": "old"}, {"dt": recent, "message": "recent"}])
    assert (await send(client, token, body)).status_code == 202
    assert [event.message for event in store.events] == ["recent"]


def limit(app: FastAPI, **settings: int) -> None:
    """Sets ingestion settings of the test's context (read at its first ingestion request)."""
    ctx = app.state.ctx
    ctx.settings = ctx.settings.model_copy(update=settings)


async def test_rate_limit_per_source_answers_429_with_retry_after(
    app: FastAPI, api: Api, client: httpx.AsyncClient, store: MemoryStore, clock: FrozenClock
) -> None:
    limit(app, logs_source_rate_limit_per_minute=3, logs_address_rate_limit_per_minute=0)
    _, token = await create_source(api)
    _, other = await create_source(api, "other")
    assert [(await send(client, token, b"{}")).status_code for _ in range(4)] == [202] * 3 + [429]
    refused = await send(client, token, b"{}")
    assert refused.status_code == 429 and refused.headers["retry-after"] == "20"
    assert "per source" in refused.json()["errors"]
    assert (await send(client, other, b"{}")).status_code == 202  # its own bucket
    clock.advance(20)
    assert (await send(client, token, b"{}")).status_code == 202


async def test_rate_limit_per_address_comes_before_the_token(
    app: FastAPI, api: Api, client: httpx.AsyncClient, store: MemoryStore
) -> None:
    limit(app, logs_address_rate_limit_per_minute=2)
    _, token = await create_source(api)
    assert (await send(client, "wps_guess", b"{}")).status_code == 403
    assert (await send(client, token, b"{}")).status_code == 202
    refused = await send(client, token, b"{}")
    assert refused.status_code == 429 and "from one address" in refused.json()["errors"]
    assert int(refused.headers["retry-after"]) == 30


async def test_the_daily_quota_refuses_a_batch_past_it_until_the_next_utc_day(
    app: FastAPI, api: Api, client: httpx.AsyncClient, store: MemoryStore, clock: FrozenClock
) -> None:
    limit(app, logs_daily_event_quota=5)
    clock.set(clock.now().replace(hour=23, minute=0))
    _, token = await create_source(api)
    assert (await send(client, token, json_body([{}] * 4))).status_code == 202
    refused = await send(client, token, json_body([{}] * 2))  # 6 > 5: none of it stored
    assert refused.status_code == 429 and refused.headers["retry-after"] == "3600"
    assert "Quota exceeded" in refused.json()["errors"]
    assert (await send(client, token, json_body([{}]))).status_code == 202
    assert len(store.events) == 5
    clock.advance(3600)
    assert (await send(client, token, json_body([{}] * 5))).status_code == 202
    assert len(store.events) == 10
