"""Ingestion as real clients use it: logtail-python's own handler against a real server, and
the exact requests Vector's http sink and Fluent Bit's http output send."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI
from logtail import LogtailHandler

from tests.factories import log_shippers as shippers
from tests.factories.api import Api
from tests.factories.log_ingest import create_source, raw, stored, texts
from tests.factories.served import serving
from watchpost.clock import FrozenClock
from watchpost.logs.store import Field


async def test_logtail_python_sends_to_watchpost_unchanged(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    clock.set(datetime.now(UTC))  # the handler stamps records with the real time
    source_id, token = await create_source(api, platform="python")
    async with serving(app) as url, httpx.AsyncClient(base_url=url) as client:
        # where the API tells this plain-HTTP server's clients to send
        shown = await client.get(f"/api/v1/sources/{source_id}", headers=api.headers)
        attributes = shown.json()["data"]["attributes"]
        assert attributes["ingesting_url"] == url  # http://127.0.0.1:<port>
        assert f"http://{attributes['ingesting_host']}" == url
        # the bare host would be taken as https and every log lost
        bare = LogtailHandler(source_token=token, host=attributes["ingesting_host"])
        bare.close()
        assert bare.host == f"https://{attributes['ingesting_host']}"
        handler = LogtailHandler(
            source_token=token, host=attributes["ingesting_url"], flush_interval=0.05
        )
        logger = logging.getLogger("watchpost-tests.logtail")
        logger.propagate = False
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
        try:
            logger.info("checkout done", extra={"order": {"id": 42, "items": ["a", "b"]}})
            logger.error("payment declined")
            await asyncio.to_thread(handler.flush)
        finally:
            logger.removeHandler(handler)
            handler.close()
    events = await stored(app)
    assert texts(events) == ["checkout done", "payment declined"]
    done, _ = events
    assert texts(events, "level") == ["info", "error"]
    assert done.source_id == source_id
    assert abs((done.dt - datetime.now(UTC)).total_seconds()) < 60  # its own `dt`
    assert raw(done)["order"] == {"id": 42, "items": ["a", "b"]}
    function = "test_logtail_python_sends_to_watchpost_unchanged"
    found = await stored(
        app,
        Field("order.items.1", "b"),
        Field("context.runtime.function", function),
        Field("level", "info"),
    )
    assert found == [done]


@pytest.mark.parametrize(
    ("headers", "body", "messages"),
    [
        (
            shippers.VECTOR_HEADERS,
            shippers.VECTOR_JSON_BODY,
            ["GET /health 200", "db timeout after 5s"],
        ),
        (
            shippers.VECTOR_NDJSON_HEADERS,
            shippers.VECTOR_NDJSON_BODY,
            ["worker started", "worker stopped"],
        ),
        (
            shippers.FLUENT_BIT_MSGPACK_HEADERS,
            shippers.FLUENT_BIT_MSGPACK_BODY,
            ["GET /health 200", "db timeout"],
        ),
        (
            shippers.FLUENT_BIT_MSGPACK_GZIP_HEADERS,
            shippers.FLUENT_BIT_MSGPACK_GZIP_BODY,
            ["GET /health 200", "db timeout"],
        ),
        (
            shippers.FLUENT_BIT_JSON_HEADERS,
            shippers.FLUENT_BIT_JSON_BODY,
            ["GET /health 200", "db timeout"],
        ),
        (
            shippers.FLUENT_BIT_NDJSON_HEADERS,
            shippers.FLUENT_BIT_NDJSON_BODY,
            ["GET /health 200", "db timeout"],
        ),
    ],
    ids=[
        "vector-json",
        "vector-ndjson",
        "fluent-bit-msgpack",
        "fluent-bit-msgpack-gzip",
        "fluent-bit-json",
        "fluent-bit-json-lines",
    ],
)
async def test_shipper_requests_are_taken_with_their_event_times(
    app: FastAPI,
    clock: FrozenClock,
    api: Api,
    client: httpx.AsyncClient,
    headers: dict[str, str],
    body: bytes,
    messages: list[str],
) -> None:
    clock.set(datetime(2026, 11, 21, 1, 55, tzinfo=UTC))  # minutes after the bodies' events
    _, token = await create_source(api)
    response = await client.post("/", content=body, headers=shippers.with_token(headers, token))
    assert response.status_code == 202, response.text
    events = await stored(app)
    assert [raw(event).get("message") or raw(event).get("log") for event in events] == messages
    first = events[0]
    assert first.dt.year == 2026 and first.dt.month == 11 and first.dt.day == 21  # not receipt
    assert first.dt.hour == 1 and first.dt.minute == 50
