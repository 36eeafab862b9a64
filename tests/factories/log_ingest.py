"""Log ingestion cases: sources to send to, request bodies as clients send them, and what
the store received."""

from __future__ import annotations

import gzip
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import httpx
import msgpack
import orjson
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from watchpost.logs.events import StoredEvent
from watchpost.logs.store import Search, Term
from watchpost.sources.models import Source

SOURCES = "/api/v1/sources"


async def create_source(api: Api, name: str = "app", **fields: Any) -> tuple[int, str]:
    """A new source of the api's team: (id, token)."""
    created = data(await api.post(SOURCES, {"name": name, "platform": "http", **fields}), 201)
    return int(created["id"]), str(created["attributes"]["token"])


def headers(token: str, content_type: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": content_type, **extra}


async def send(
    client: httpx.AsyncClient,
    token: str,
    body: bytes,
    content_type: str = "application/json",
    *,
    gzipped: bool = False,
    path: str = "/",
    extra: Mapping[str, str] | None = None,
) -> httpx.Response:
    more = dict(extra or {})
    if gzipped:
        body = gzip.compress(body)
        more["Content-Encoding"] = "gzip"
    return await client.post(path, content=body, headers=headers(token, content_type, **more))


def json_body(value: Any) -> bytes:
    return orjson.dumps(value)


def msgpack_body(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


def ndjson_body(values: Sequence[Any]) -> bytes:
    return b"\n".join(orjson.dumps(value) for value in values) + b"\n"


def logtail_frame(count: int, *, message: str = "request served", at: datetime) -> list[Any]:
    """Events as logtail-python's handler builds them (logtail/frame.py), `count` of them."""
    return [
        {
            "dt": at.isoformat(),
            "level": "info",
            "severity": 2,
            "message": f"{message} {n}",
            "context": {
                "runtime": {
                    "function": "handle",
                    "file": "app.py",
                    "line": 42,
                    "thread_id": 140245,
                    "thread_name": "MainThread",
                    "logger_name": "app",
                },
                "system": {"pid": 4242, "process_name": "MainProcess"},
            },
            "request_id": f"req-{n}",
        }
        for n in range(count)
    ]


async def stored(app: FastAPI, *terms: Term) -> list[StoredEvent]:
    """Every event of the test's sources in the store (its real store), oldest first."""
    ctx = app.state.ctx
    async with ctx.db.read_sessions() as session:
        ids = list((await session.scalars(select(Source.id))).all())
    search = Search(source_ids=ids, terms=terms, newest_first=False, limit=1000)
    found: list[StoredEvent] = await ctx.logs.search(search)
    return found


def raw(event: StoredEvent) -> dict[str, Any]:
    value = orjson.loads(event.raw)
    assert isinstance(value, dict)
    return value


def texts(events: Sequence[StoredEvent], key: str = "message") -> list[Any]:
    """The `key` of each event as sent."""
    return [raw(event).get(key) for event in events]
