"""Deliveries survive restarts, are sent once by several workers in the normal case, and a
worker that dies between claim and send has its delivery redone by another (at least once)."""

from __future__ import annotations

import asyncio
from collections import Counter

from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import (
    Answer,
    advance,
    configure,
    create_webhook,
    deliveries,
    receiver,
)
from tests.factories.incidents import create_reported_incident
from watchpost.context import AppContext
from watchpost.delivery import results
from watchpost.delivery.results import Attempt
from watchpost.delivery.sending import Outcome
from watchpost.delivery.worker import LEASE_MARGIN_S, Deliverer
from watchpost.incidents.policy_actions import PolicyActions


def _process(app: FastAPI, owner: str) -> Deliverer:
    """A delivery worker with a database engine of its own, as another process has."""
    ctx: AppContext = app.state.ctx
    built = AppContext.build(ctx.settings, ctx.clock)
    return Deliverer(built, incidents=PolicyActions(built.clock), owner=owner)


async def test_a_restart_in_the_middle_of_the_retries_still_delivers(
    app: FastAPI, api: Api
) -> None:
    configure(app, delivery_retry_delays="0,60,60")
    async with receiver() as hook:
        hook.answer("/hook", Answer(500))
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        before = _process(app, "before-restart")
        await before.tick()
        await before.ctx.db.dispose()  # the process is gone; only the database remains
        after = _process(app, "after-restart")
        advance(app, 30)
        assert (await after.tick()).sent == 0  # the schedule is kept, not restarted
        advance(app, 40)
        assert (await after.tick()).sent == 1
        await after.ctx.db.dispose()
        assert [r.json()["event"] for r in hook.at("/hook")] == ["started", "started"]
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts) == ("succeeded", 2)


async def test_two_workers_send_each_event_once(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        await create_webhook(api, hook.url("/second"))
        for n in range(15):
            await create_reported_incident(api, name=f"Incident {n}")
        a, b = _process(app, "worker-a"), _process(app, "worker-b")
        try:
            for _ in range(3):
                await asyncio.gather(a.tick(), b.tick())
        finally:
            await a.ctx.db.dispose()
            await b.ctx.db.dispose()
        seen = Counter((r.path, r.headers["webhook-id"]) for r in hook.received)
    assert len(seen) == 30 and set(seen.values()) == {1}
    assert {delivery.state for delivery in await deliveries(app)} == {"succeeded"}


async def test_a_delivery_claimed_by_a_dead_worker_is_sent_by_another(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        dead, alive = _process(app, "dead"), _process(app, "alive")
        now = app.state.ctx.clock.now()
        await dead.dispatch(now)
        [job] = await dead.claim(now, 10)  # and then the process dies, before sending
        await dead.ctx.db.dispose()
        assert (await alive.tick()).sent == 0  # the lease is still the dead worker's
        advance(app, app.state.ctx.settings.delivery_timeout + LEASE_MARGIN_S + 1)
        assert (await alive.tick()).sent == 1
        assert len(hook.at("/hook")) == 1
        # Had the first worker come back and sent after all, its outcome would not count:
        # the delivery is no longer leased to it.
        late = Attempt(job=job, outcome=Outcome(status_code=500), at=now, owner="dead")
        async with alive.ctx.db.write_sessions() as session, session.begin():
            assert await results.record(session, [late], settings=alive.settings) == 0
        await alive.ctx.db.dispose()
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts, delivery.status_code) == ("succeeded", 1, 200)


async def test_run_forever_delivers_and_stops_cleanly(app: FastAPI, api: Api) -> None:
    """The production loop: the receiver's request is what the test waits for."""
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = _process(app, "loop")
        running = asyncio.create_task(worker.run_forever())
        await asyncio.wait_for(hook.arrived.wait(), 10)
        worker.stop()
        await asyncio.wait_for(running, 10)
        await worker.ctx.db.dispose()
        assert len(hook.at("/hook")) == 1
    [delivery] = await deliveries(app)
    assert delivery.state == "succeeded"
