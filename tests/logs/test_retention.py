"""Retention on the app's own store (ctx.logs), with each source's days from the database and
the time from the injectable clock; and the periodic task that enforces it."""

from __future__ import annotations

import asyncio
import gc
from datetime import timedelta

import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.logs import log_event
from watchpost.app import build_app
from watchpost.clock import FrozenClock
from watchpost.logs.events import MetricPoint
from watchpost.logs.retention import RetentionLoop, enforce_retention
from watchpost.logs.store import MetricSearch, Search


async def make_source(api: Api, name: str, logs: int, metrics: int) -> int:
    body = {
        "name": name,
        "platform": "python",
        "logs_retention": logs,
        "metrics_retention": metrics,
    }
    response = await api.post("/api/v1/sources", body)
    assert response.status_code == 201, response.text
    return int(response.json()["data"]["id"])


async def test_each_source_keeps_its_own_days(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    ctx = app.state.ctx
    short = await make_source(api, "short", logs=3, metrics=7)
    long = await make_source(api, "long", logs=30, metrics=7)
    start = clock.now()
    events = [
        log_event(start - timedelta(days=n), f"{sid} {n}", source_id=sid, team_id=api.team_id)
        for sid in (short, long)
        for n in range(6)
    ]
    await ctx.logs.append(events)
    await ctx.logs.append_metrics(
        [MetricPoint(short, api.team_id, start - timedelta(days=n), "cpu", 1.0) for n in range(10)]
    )

    assert await enforce_retention(ctx.db, ctx.logs, clock) == (2, 2)
    left = await ctx.logs.search(Search([short, long], limit=100))
    ages = sorted((e.source_id, (start - e.dt).days) for e in left)
    # A day partition goes once it ended `days` ago: start's own day is kept whole.
    assert ages == [*((short, n) for n in range(4)), *((long, n) for n in range(6))]
    metrics = await ctx.logs.search_metrics(MetricSearch([short]))
    assert sorted((start - p.dt).days for p in metrics) == list(range(8))

    clock.advance(timedelta(days=40))
    dropped = await enforce_retention(ctx.db, ctx.logs, clock)
    assert dropped == (4 + 6, 8)
    assert await ctx.logs.search(Search([short, long])) == []


async def test_the_periodic_task_runs_at_once_and_stops(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    ctx = app.state.ctx
    source = await make_source(api, "s", logs=1, metrics=1)
    old = log_event(clock.now() - timedelta(days=5), "old", source_id=source)
    await ctx.logs.append([old])
    loop = RetentionLoop(ctx.db, ctx.logs, clock, interval=3600)
    task = asyncio.create_task(loop.run_forever())
    await asyncio.wait_for(loop.round_done.wait(), 30)
    assert await ctx.logs.search(Search([source])) == []
    loop.stop()
    await asyncio.wait_for(task, 30)
    assert loop.rounds == 1


async def test_the_app_runs_retention_and_closes_its_store(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    ctx = app.state.ctx
    source = await make_source(api, "s", logs=2, metrics=2)
    old = log_event(clock.now() - timedelta(days=4), "old", source_id=source)
    kept = log_event(clock.now(), "kept", source_id=source)
    await ctx.logs.append([old, kept])
    served = build_app(ctx, retention=True)
    try:
        async with served.router.lifespan_context(served):
            await asyncio.wait_for(served.state.retention.round_done.wait(), 30)
            assert [e.id for e in await ctx.logs.search(Search([source]))] == [kept.id]
    finally:
        gc.unfreeze()  # the lifespan froze the heap, as a server does, not a test process
    with pytest.raises(RuntimeError, match="closed"):
        await ctx.logs.append([log_event(clock.now(), "after")])
