"""A delivery worker hears of an event recorded in its own process as soon as the event's
transaction commits (delivery/outbox.when_recorded), not at its next look for work
(`delivery_poll_interval`, which other processes' events still wait for)."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import configure, create_webhook, deliverer_of, receiver
from tests.factories.incidents import create_reported_incident
from watchpost.delivery import outbox


async def test_a_commit_that_recorded_an_event_calls_the_listeners_once(
    app: FastAPI, api: Api
) -> None:
    heard: list[str] = []
    stop = outbox.when_recorded(lambda: heard.append("event"))
    try:
        created = await api.post(
            "/api/v2/monitors", {"url": "https://example.com", "monitor_type": "status"}
        )
        assert created.status_code == 201, created.text
        assert heard == ["event"]  # the monitor's `created` event, once its request committed
        await api.get("/api/v2/monitors")
        await create_webhook(api, "https://hooks.example.com/in")  # a write, but no event
        assert heard == ["event"]
        ctx = app.state.ctx
        data = {"type": "monitor", "id": created.json()["data"]["id"]}
        with pytest.raises(RuntimeError):
            async with ctx.db.write_sessions() as session, session.begin():
                await outbox.record(
                    session,
                    team_id=api.team_id,
                    trigger_type="monitor_change",
                    event="updated",
                    data=data,
                    at=ctx.clock.now(),
                )
                raise RuntimeError("rolled back")
        assert heard == ["event"]  # rolled back: nothing to hear of
    finally:
        stop()
    await api.post("/api/v2/monitors", {"url": "https://example.org", "monitor_type": "status"})
    assert heard == ["event"]  # stopped


async def test_a_sleeping_worker_is_woken_by_an_event_of_its_process(
    app: FastAPI, api: Api
) -> None:
    """With an hour between looks, only the wake can deliver within the test's 10 s."""
    configure(app, delivery_poll_interval=3600)
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        worker = deliverer_of(app, "sleeper")
        first_pass = asyncio.Event()
        passes = 0
        look = worker._pass

        async def counted() -> bool:
            nonlocal passes
            busy = await look()
            passes += 1
            first_pass.set()
            return busy

        worker._pass = counted  # type: ignore[method-assign]
        running = asyncio.create_task(worker.run_forever())
        await asyncio.wait_for(first_pass.wait(), 10)  # found nothing: asleep for an hour
        await create_reported_incident(api)
        await asyncio.wait_for(hook.arrived.wait(), 10)
        worker.stop()
        await asyncio.wait_for(running, 10)
    assert len(hook.at("/hook")) == 1 and passes >= 2
