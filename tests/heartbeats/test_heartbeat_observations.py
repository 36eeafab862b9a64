"""Heartbeats reach the check history through the engine's observation sweep, not pings."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.engine import engine_of
from tests.factories.heartbeats import create_heartbeat
from watchpost.clock import FrozenClock
from watchpost.heartbeats.checking import OBSERVE_EVERY


async def _resource(api: Api, heartbeat_id: int) -> str:
    page = data(await api.post("/api/v2/status-pages", {"subdomain": "jobs"}), 201)["id"]
    body = {"resource_type": "Heartbeat", "resource_id": str(heartbeat_id)}
    resource = data(await api.post(f"/api/v2/status-pages/{page}/resources", body), 201)["id"]
    return f"/api/v2/status-pages/{page}/resources/{resource}"


async def _attributes(api: Api, path: str) -> dict[str, Any]:
    attributes: dict[str, Any] = data(await api.get(path))["attributes"]
    return attributes


async def test_a_pinged_heartbeat_is_observed_while_the_engine_runs(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    path = await _resource(api, made.id)
    before = await _attributes(api, path)
    # up at once (the heartbeat's own state), though no time was observed yet
    assert (before["status"], before["availability"]) == ("operational", 1.0)
    assert before["status_history"][-1]["status"] == "not_monitored"

    engine = engine_of(app)
    for _ in range(10):
        await engine.sweep(clock.now())
        clock.advance(OBSERVE_EVERY)
        assert (await client.get(made.url)).status_code == 200
    after = await _attributes(api, path)
    assert after["status"] == "operational"
    assert after["availability"] == 1.0
    assert after["status_history"][-1]["status"] == "operational"


async def test_paused_heartbeats_are_not_observed(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    data(await api.patch(f"/api/v2/heartbeats/{made.id}", {"paused": True}))
    path = await _resource(api, made.id)
    engine = engine_of(app)
    for _ in range(3):
        await engine.sweep(clock.now())
        clock.advance(OBSERVE_EVERY)
    assert (await _attributes(api, path))["status"] == "not_monitored"


async def test_a_missed_deadline_counts_as_downtime(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api, period=60, grace=0)
    assert (await client.get(made.url)).status_code == 200
    path = await _resource(api, made.id)
    engine = engine_of(app)
    for _ in range(10):  # no more pings: overdue after a minute, then down with an incident
        await engine.sweep(clock.now())
        clock.advance(OBSERVE_EVERY)
    attributes = await _attributes(api, path)
    assert attributes["status"] == "downtime"
    assert attributes["availability"] is not None and attributes["availability"] < 1.0
    assert attributes["status_history"][-1]["downtime_duration"] > 0
