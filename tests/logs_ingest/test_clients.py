"""Ingestion as real clients use it: logtail-python's own handler against a real server, and
the exact requests Vector's http sink and Fluent Bit's http output send."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import httpx
import orjson
import pytest
from fastapi import FastAPI
from logtail import LogtailHandler

from tests.factories import log_shippers as shippers
from tests.factories.api import Api
from tests.factories.log_ingest import MemoryStore, create_source
from tests.factories.served import serving


@pytest.fixture
def store(app: FastAPI) -> MemoryStore:
    memory = MemoryStore()
    app.state.ctx.logs = memory
    return memory


async def test_logtail_python_sends_to_watchpost_unchanged(
    app: FastAPI, api: Api, store: MemoryStore
) -> None:
    source_id, token = await create_source(api, platform="python")
    async with serving(app) as url:
        handler = LogtailHandler(source_token=token, host=url, flush_interval=0.05)
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
    assert [event.message for event in store.events] == ["checkout done", "payment declined"]
    done, declined = store.events
    assert (done.level, declined.level) == ("info", "error")
    assert done.source_id == source_id
    assert done.attributes["order.items.1"] == "b"
    assert done.attributes["context.runtime.function"] == (
        "test_logtail_python_sends_to_watchpost_unchanged"
    )
    assert abs((done.dt - datetime.now(UTC)).total_seconds()) < 60  # its own `dt`
    assert orjson.loads(done.raw)["order"] == {"id": 42, "items": ["a", "b"]}


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
        "fluent-bit-json",
        "fluent-bit-json-lines",
    ],
)
async def test_shipper_requests_are_taken_with_their_event_times(
    api: Api,
    client: httpx.AsyncClient,
    store: MemoryStore,
    headers: dict[str, str],
    body: bytes,
    messages: list[str],
) -> None:
    _, token = await create_source(api)
    response = await client.post("/", content=body, headers=shippers.with_token(headers, token))
    assert response.status_code == 202, response.text
    assert [event.message for event in store.events] == messages
    first = store.events[0]
    assert first.dt.year == 2026 and first.dt.month == 11 and first.dt.day == 21  # not receipt
    assert first.dt.hour == 1 and first.dt.minute == 50
