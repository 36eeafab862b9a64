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

from tests.factories.api import Api, data
from watchpost.logs.events import LogEvent, StoredEvent
from watchpost.logs.store import Search

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


class MemoryStore:
    """A LogStore in a list: what the HTTP layer handed over, in order."""

    def __init__(self) -> None:
        self.events: list[LogEvent] = []
        self.appends = 0

    async def append(self, events: Sequence[LogEvent]) -> None:
        self.appends += 1
        self.events.extend(events)

    async def search(self, search: Search) -> list[StoredEvent]:
        found = [
            StoredEvent(id=e.id, source_id=e.source_id, dt=e.dt, raw=e.raw)
            for e in self.events
            if e.source_id in search.source_ids
        ]
        return found[: search.limit]

    async def drop_expired(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        return 0

    async def close(self) -> None:
        return None
