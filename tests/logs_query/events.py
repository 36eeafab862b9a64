"""Log events for the query tests, built as ingestion builds them (flattened attributes)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from tests.factories.api import Api, data
from watchpost.logs.events import LogEvent, new_event_ids
from watchpost.logs.query_language import flatten


def log_event(source_id: int, team_id: int, dt: datetime, body: dict[str, Any]) -> LogEvent:
    [event_id] = new_event_ids(1)
    leaves = flatten(body)
    return LogEvent(
        id=event_id,
        source_id=source_id,
        team_id=team_id,
        dt=dt,
        level=leaves.get("level", "").lower(),
        service=leaves.get("service", ""),
        message=leaves.get("message", ""),
        attributes=leaves,
        raw=orjson.dumps(body),
    )


async def new_source(api: Api, name: str = "app", **fields: Any) -> int:
    body = {"name": name, "platform": "python", **fields}
    return int(data(await api.post("/api/v1/sources", body), 201)["id"])
