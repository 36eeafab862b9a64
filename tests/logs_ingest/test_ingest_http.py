"""POST / as the hosted ingestion contract has it, on both backends (sources live in the
database) into the real logs store: formats, compression, answers, limits, paused sources,
rate limits and quotas."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import msgpack
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from tests.factories.api import Api
from tests.factories.log_ingest import (
    create_source,
    json_body,
    logtail_frame,
    msgpack_body,
    ndjson_body,
    raw,
    send,
    stored,
    texts,
)
from watchpost.clock import FrozenClock
from watchpost.ingestion.state import CONCURRENT_BODIES
from watchpost.logs.ingest_body import MAX_BODY_BYTES
from watchpost.logs.store import Field, Word
from watchpost.setting_values import parse_source_quotas
from watchpost.settings import Settings


async def test_json_object_array_ndjson_and_msgpack_are_stored(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api)
    one = {"message": "logs is ready", "nested": {"values": 123}, "level": "WARN"}
    for body, content_type in (
        (json_body(one), "application/json"),
        (json_body([{"message": "A"}, {"message": "B"}]), "application/json"),
        (ndjson_body([{"message": "C"}, {"message": "D"}]), "application/x-ndjson"),
        (msgpack_body([{"message": "E"}, {"message": "F"}]), "application/msgpack"),
    ):
        response = await send(client, token, body, content_type)
        assert response.status_code == 202, response.text
        assert response.content == b""
    events = await stored(app)
    assert texts(events) == ["logs is ready", *"ABCDEF"]
    first = events[0]
    assert first.source_id == source_id
    assert first.dt == clock.now()  # no dt: the time of receipt
    assert raw(first) == one
    # level, message and the flattened attributes are what searches see
    assert await stored(app, Field("level", "warn"), Field("nested.values", "123")) == [first]
    assert await stored(app, Word("ready")) == [first]


async def test_dt_sets_the_event_time_and_an_unreadable_one_is_kept(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    _, token = await create_source(api)
    at = (clock.now() - timedelta(hours=1)).replace(microsecond=0)
    seconds = int(at.timestamp())
    body = json_body(
        [
            {"dt": seconds, "message": "s"},
            {"dt": seconds * 1000 + 250, "message": "ms"},
            {"dt": seconds * 1_000_000_000 + 123_456_000, "message": "ns"},
            {"dt": at.isoformat(), "message": "text"},
            {"dt": "soon", "message": "unreadable"},
        ]
    )
    assert (await send(client, token, body)).status_code == 202
    events = {raw(e)["message"]: e for e in await stored(app)}
    assert {message: e.dt for message, e in events.items()} == {
        "s": at,
        "ms": at + timedelta(milliseconds=250),
        "ns": at + timedelta(microseconds=123_456),
        "text": at,
        "unreadable": clock.now(),
    }
    assert raw(events["unreadable"])["dt"] == "soon"


async def test_gzip_and_deflate_bodies(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
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
    events = await stored(app)
    assert len(events) == 6 and texts(events)[-3:] == ["z", "m1", "m2"]


async def test_missing_and_unknown_tokens(
    app: FastAPI, api: Api, client: httpx.AsyncClient
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
    assert await stored(app) == []


async def test_unreadable_bodies_answer_406_and_store_nothing(
    app: FastAPI, api: Api, client: httpx.AsyncClient
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
    assert await stored(app) == []


async def test_times_out_of_range_are_a_406_naming_the_event_or_the_time_of_receipt(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    _, token = await create_source(api)
    for stamp in (msgpack.Timestamp(2**62), msgpack.Timestamp(-(2**62))):
        body = msgpack.packb([{"message": "fine"}, {"dt": stamp}], datetime=False)
        for gzipped in (False, True):  # (the native path declines it: the Python path answers)
            response = await send(client, token, body, "application/msgpack", gzipped=gzipped)
            assert response.status_code == 406, response.text
            assert (
                "the event at index 1 holds a timestamp outside the years 1 to 9999"
                in (response.json()["errors"])
            )
    assert await stored(app) == []
    # text and numbers past a datetime's range are unreadable times: kept, at the receipt
    values = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", 1e300, -1]
    events = [{"dt": value, "message": str(n)} for n, value in enumerate(values)]
    assert (await send(client, token, json_body(events))).status_code == 202
    assert (await send(client, token, b'[{"dt": %d}]' % 10**30)).status_code == 202
    response = await send(client, token, msgpack_body(events), "application/msgpack")
    assert response.status_code == 202
    kept = await stored(app)
    assert len(kept) == 9 and {event.dt for event in kept} == {clock.now()}
    assert raw(kept[0])["dt"] == values[0]  # kept as sent


async def test_unsupported_content_type_and_encoding_answer_415(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    _, token = await create_source(api)
    assert (await send(client, token, b"hello", "text/plain")).status_code == 415
    response = await send(client, token, b"{}", extra={"Content-Encoding": "br"})
    assert response.status_code == 415
    assert await stored(app) == []


async def test_bodies_over_20_mib_decoded_answer_413(
    app: FastAPI, api: Api, client: httpx.AsyncClient
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
    unknown = await client.post(  # refused by its length before any token look-up
        "/",
        content=b"{}",
        headers={"Authorization": "Bearer wps_unknown", "Content-Length": str(MAX_BODY_BYTES + 1)},
    )
    assert unknown.status_code == 413

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
    exactly = b'[{"message": "at the limit"}' + b" " * (MAX_BODY_BYTES - 29) + b"]"
    assert len(exactly) == MAX_BODY_BYTES
    assert (await send(client, token, exactly)).status_code == 202
    assert texts(await stored(app)) == ["at the limit"]


async def test_a_paused_source_answers_202_and_keeps_nothing(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api, ingesting_paused=True)
    assert (await send(client, token, b'{"message": "dropped"}')).status_code == 202
    assert await stored(app) == []
    response = await api.patch(f"/api/v1/sources/{source_id}", {"ingesting_paused": False})
    assert response.status_code == 200
    clock.advance(11)  # past the token cache's time
    assert (await send(client, token, b'{"message": "kept"}')).status_code == 202
    assert texts(await stored(app)) == ["kept"]


async def test_a_deleted_source_stops_ingesting_once_its_lookup_expires(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api)
    assert (await send(client, token, b"{}")).status_code == 202
    assert (await api.delete(f"/api/v1/sources/{source_id}")).status_code == 204
    clock.advance(11)
    assert (await send(client, token, b"{}")).status_code == 403


async def test_events_older_than_the_retention_are_dropped_on_arrival(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    _, token = await create_source(api, logs_retention=3)
    old = (clock.now() - timedelta(days=4)).isoformat()
    recent = (clock.now() - timedelta(days=2)).isoformat()
    body = json_body([{"dt": old, "message": "old"}, {"dt": recent, "message": "recent"}])
    assert (await send(client, token, body)).status_code == 202
    assert texts(await stored(app)) == ["recent"]


def limit(app: FastAPI, **settings: int | str) -> None:
    """Sets ingestion settings of the test's context (read at its first ingestion request)."""
    ctx = app.state.ctx
    ctx.settings = ctx.settings.model_copy(update=settings)


async def test_rate_limit_per_source_answers_429_with_retry_after(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
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
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    limit(app, logs_address_rate_limit_per_minute=2)
    _, token = await create_source(api)
    assert (await send(client, "wps_guess", b"{}")).status_code == 403
    assert (await send(client, token, b"{}")).status_code == 202
    refused = await send(client, token, b"{}")
    assert refused.status_code == 429 and "from one address" in refused.json()["errors"]
    assert int(refused.headers["retry-after"]) == 30


async def test_the_daily_quota_refuses_a_batch_past_it_until_the_next_utc_day(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    limit(app, logs_daily_event_quota=5)
    clock.set(clock.now().replace(hour=23, minute=0))
    _, token = await create_source(api)
    assert (await send(client, token, json_body([{}] * 4))).status_code == 202
    refused = await send(client, token, json_body([{}] * 2))  # 6 > 5: none of it stored
    assert refused.status_code == 429 and refused.headers["retry-after"] == "3600"
    assert "Quota exceeded" in refused.json()["errors"]
    assert (await send(client, token, json_body([{}]))).status_code == 202
    assert len(await stored(app)) == 5
    clock.advance(3600)
    assert (await send(client, token, json_body([{}] * 5))).status_code == 202
    assert len(await stored(app)) == 10


async def test_a_source_of_its_own_quota(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    """WATCHPOST_LOGS_SOURCE_QUOTAS gives sources quotas of their own; the others keep the
    default one."""
    clock.set(clock.now().replace(hour=23, minute=0))
    small_id, small = await create_source(api)
    free_id, free = await create_source(api)
    _, other = await create_source(api)
    limit(app, logs_daily_event_quota=4, logs_source_quotas=f"{small_id}=2, {free_id}=0")
    assert (await send(client, small, json_body([{}] * 2))).status_code == 202
    refused = await send(client, small, json_body([{}]))
    assert refused.status_code == 429
    assert "may send 2 events a day" in refused.json()["errors"]
    assert (await send(client, free, json_body([{}] * 50))).status_code == 202  # no quota
    assert (await send(client, other, json_body([{}] * 4))).status_code == 202
    assert (await send(client, other, json_body([{}]))).status_code == 429
    assert len(await stored(app)) == 56


async def test_slow_uploads_hold_no_parse_slot(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    """More slow uploads than parse slots: quick requests still go through meanwhile."""
    _, token = await create_source(api)
    release = asyncio.Event()

    async def slow(n: int) -> AsyncIterator[bytes]:
        yield b'[{"message": "slow %d"}' % n
        await release.wait()
        yield b"]"

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    uploads = [
        asyncio.create_task(client.post("/", content=slow(n), headers=headers))
        for n in range(CONCURRENT_BODIES + 1)
    ]
    for n in range(3):
        quick = send(client, token, json_body({"message": f"quick {n}"}))
        assert (await asyncio.wait_for(quick, 30)).status_code == 202
    release.set()
    assert [(await upload).status_code for upload in uploads] == [202] * len(uploads)
    assert len(await stored(app)) == 3 + len(uploads)


async def test_past_the_reading_budget_a_request_is_told_to_retry(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    _, token = await create_source(api)
    assert (await send(client, token, b"{}")).status_code == 202
    ing = app.state.log_ingestion
    ing.reading_budget = 1000
    body = json_body([{"message": "x" * 100}] * 20)
    refused = await send(client, token, body)
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert "retry" in refused.json()["errors"]
    assert ing.reading == 0  # what it had read is given back
    assert (await send(client, token, json_body({"message": "small"}))).status_code == 202
    assert texts(await stored(app)) == [None, "small"]


def test_source_quotas_are_read_at_start() -> None:
    assert parse_source_quotas(" 12=5000000, 15=0 ,") == {12: 5_000_000, 15: 0}
    for bad in ("12", "a=1", "12=-1", "12=1e6"):
        with pytest.raises(ValidationError, match="source_id=events"):
            Settings(logs_source_quotas=bad)
