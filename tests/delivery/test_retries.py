"""Failures are retried on the configured schedule, Retry-After is honoured, and a webhook
that answers 410 or keeps failing is disabled, with the reason in the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import (
    WEBHOOKS,
    Answer,
    advance,
    configure,
    create_webhook,
    deliverer_of,
    deliveries,
    receiver,
)
from tests.factories.incidents import create_reported_incident
from watchpost import destinations
from watchpost.delivery.results import next_delay
from watchpost.delivery.sending import Outcome


@pytest.fixture(autouse=True)
def quick_retries(app: FastAPI) -> None:
    configure(app, delivery_retry_delays="0,1,1", delivery_timeout=2)


async def test_a_failing_receiver_gets_the_event_when_it_recovers(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(500, body="down"), Answer(502))
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = deliverer_of(app)
        await worker.tick()
        [delivery] = await deliveries(app)
        assert (delivery.state, delivery.attempts, delivery.status_code) == ("pending", 1, 500)
        assert delivery.error == "HTTP 500" and delivery.response_excerpt == "down"
        assert delivery.next_attempt_at is not None
        due_in = (delivery.next_attempt_at - app.state.ctx.clock.now()).total_seconds()
        assert 0.9 <= due_in <= 1.1  # the second delay, with its jitter
        assert (await worker.tick()).sent == 0  # not due yet
        advance(app, 1.2)
        await worker.tick()
        advance(app, 1.2)
        await worker.tick()
        requests = hook.at("/hook")
    assert len(requests) == 3
    assert len({request.headers["webhook-id"] for request in requests}) == 1  # one message
    assert requests[0].body == requests[2].body
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts, delivery.status_code) == ("succeeded", 3, 200)


async def test_a_delivery_is_given_up_after_the_last_attempt(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        hook.answer("/hook", *[Answer(500)] * 5)
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = deliverer_of(app)
        for _ in range(5):
            await worker.tick()
            advance(app, 1.2)
        assert len(hook.at("/hook")) == 3
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts, delivery.next_attempt_at) == ("failed", 3, None)


async def test_redirects_are_failures_and_not_followed(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(302, headers={"Location": hook.url("/elsewhere")}))
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        await deliverer_of(app).tick()
        assert hook.at("/elsewhere") == []
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.status_code) == ("pending", 302)


async def test_a_slow_receiver_times_out(app: FastAPI, api: Api) -> None:
    configure(app, delivery_timeout=0.2)
    async with receiver() as hook:
        hook.answer("/hook", Answer(delay=1.0))
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        await deliverer_of(app).tick()
    [delivery] = await deliveries(app)
    assert delivery.status_code is None and delivery.error == "timed out after 0.2 s"
    assert delivery.state == "pending"


async def test_an_unreachable_receiver_is_an_error_with_a_reason(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        url = hook.url()
    await create_webhook(api, url)  # the receiver is gone: nothing listens on its port
    await create_reported_incident(api)
    await deliverer_of(app).tick()
    [delivery] = await deliveries(app)
    assert delivery.error is not None and delivery.error.startswith("could not connect")


@pytest.mark.parametrize("status", [429, 503])
async def test_retry_after_is_honoured(app: FastAPI, api: Api, status: int) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(status, headers={"Retry-After": "120"}))
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        await deliverer_of(app).tick()
    [delivery] = await deliveries(app)
    assert delivery.next_attempt_at == app.state.ctx.clock.now() + timedelta(seconds=120)


def test_the_delay_grows_with_the_schedule_and_keeps_its_jitter() -> None:
    delays = (0.0, 5.0, 300.0, 1800.0)
    for attempts, base in ((1, 5.0), (2, 300.0), (3, 1800.0)):
        for _ in range(50):
            delay = next_delay(attempts, delays, Outcome(status_code=500))
            assert delay is not None and base * 0.9 <= delay <= base * 1.1
    assert next_delay(4, delays, Outcome(status_code=500)) is None
    waited = next_delay(1, delays, Outcome(status_code=429, retry_after=10**9))
    assert waited == 86_400.0  # a Retry-After is capped at a day


async def test_410_disables_the_webhook_until_it_is_changed(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(410))
        webhook = await create_webhook(api, hook.url())
        path = f"{WEBHOOKS}/{webhook['id']}"
        await create_reported_incident(api)
        worker = deliverer_of(app)
        await worker.tick()
        shown = data(await api.get(path))["attributes"]
        assert shown["disabled_at"] is not None
        assert "410" in shown["disabled_reason"]
        await create_reported_incident(api)  # not sent to a disabled webhook
        await worker.tick()
        assert len(hook.at("/hook")) == 1
        enabled = data(await api.patch(path, {}))["attributes"]
        assert "disabled_at" not in enabled
        await create_reported_incident(api)
        await worker.tick()
        assert len(hook.at("/hook")) == 2
    states = [delivery.state for delivery in await deliveries(app)]
    assert states == ["failed", "succeeded"]


async def test_pending_deliveries_of_a_disabled_webhook_are_cancelled(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(500), Answer(410))
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = deliverer_of(app)
        await worker.tick()  # the first fails with 500: pending, due again in a second
        await create_reported_incident(api)
        await worker.tick()  # the second: 410, the webhook is disabled
        advance(app, 1.2)
        await worker.tick()
        assert len(hook.at("/hook")) == 2
    first, second = await deliveries(app)
    assert (first.state, second.state) == ("cancelled", "failed")
    assert first.error is not None and "disabled" in first.error


async def test_a_webhook_failing_for_five_days_is_disabled(app: FastAPI, api: Api) -> None:
    configure(app, delivery_retry_delays="0")
    async with receiver() as hook:
        hook.answer("/hook", *[Answer(500)] * 3)
        webhook = await create_webhook(api, hook.url())
        path = f"{WEBHOOKS}/{webhook['id']}"
        worker = deliverer_of(app)
        await create_reported_incident(api)
        await worker.tick()
        advance(app, 4 * 86400)
        await create_reported_incident(api)
        await worker.tick()
        assert "disabled_at" not in data(await api.get(path))["attributes"]
        advance(app, 86400)
        await create_reported_incident(api)
        await worker.tick()
        shown = data(await api.get(path))["attributes"]
    assert shown["disabled_reason"] == "every delivery failed for 5 days"


async def test_a_success_ends_the_failing_streak(app: FastAPI, api: Api) -> None:
    configure(app, delivery_retry_delays="0")
    async with receiver() as hook:
        hook.answer("/hook", Answer(500), Answer(200), Answer(500))
        webhook = await create_webhook(api, hook.url())
        worker = deliverer_of(app)
        for _ in range(3):
            await create_reported_incident(api)
            await worker.tick()
            advance(app, 3 * 86400)
        shown = data(await api.get(f"{WEBHOOKS}/{webhook['id']}"))["attributes"]
    assert "disabled_at" not in shown


async def test_a_destination_denied_after_creation_is_refused_at_connect(
    app: FastAPI, api: Api
) -> None:
    """The destination policy holds at send time too (an address stored before the list
    changed, or a name whose DNS answer changed): nothing reaches the receiver."""
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        destinations.configure("127.0.0.1/32")
        try:
            await deliverer_of(app).tick()
        finally:
            destinations.configure(None)
        assert hook.received == []
    [delivery] = await deliveries(app)
    assert delivery.state == "pending" and delivery.error is not None
    assert "127.0.0.1 is in a denied network (127.0.0.1/32)" in delivery.error
