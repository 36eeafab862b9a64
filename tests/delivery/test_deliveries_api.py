"""A webhook's delivery log, manual replay and test sends, through the API."""

from __future__ import annotations

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import (
    WEBHOOKS,
    Answer,
    advance,
    configure,
    create_webhook,
    deliverer_of,
    receiver,
)
from tests.factories.incidents import create_reported_incident


async def test_the_log_lists_attempts_newest_first_with_their_outcome(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(500, body="x" * 5000))
        webhook = await create_webhook(api, hook.url())
        first = await create_reported_incident(api, name="First")
        await create_reported_incident(api, name="Second")
        await deliverer_of(app).tick()
        log = (await api.get(f"{WEBHOOKS}/{webhook['id']}/deliveries?per_page=1")).json()
    [newest] = log["data"]
    assert log["pagination"]["next"] is not None and "page=2" in log["pagination"]["next"]
    assert newest["type"] == "outgoing_webhook_delivery"
    attributes = newest["attributes"]
    assert (attributes["event"], attributes["state"], attributes["status_code"]) == (
        "started",
        "succeeded",
        200,
    )
    older = (await api.get(f"{WEBHOOKS}/{webhook['id']}/deliveries?page=2&per_page=1")).json()
    failed = older["data"][0]["attributes"]
    assert failed["subject_id"] == int(first["id"]) and failed["subject_type"] == "incident"
    assert (failed["state"], failed["attempts"], failed["status_code"]) == ("pending", 1, 500)
    assert failed["error"] == "HTTP 500"
    assert failed["response_excerpt"] == "x" * 1024  # the first KB only
    assert failed["next_attempt_at"] is not None and failed["duration_ms"] >= 0
    one = data(await api.get(f"{WEBHOOKS}/{webhook['id']}/deliveries/{older['data'][0]['id']}"))
    assert one == older["data"][0]


async def test_a_given_up_delivery_can_be_replayed_with_its_message_id(
    app: FastAPI, api: Api
) -> None:
    configure(app, delivery_retry_delays="0")
    async with receiver() as hook:
        hook.answer("/hook", Answer(500))
        webhook = await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = deliverer_of(app)
        await worker.tick()
        base = f"{WEBHOOKS}/{webhook['id']}/deliveries"
        [delivery] = (await api.get(base)).json()["data"]
        assert delivery["attributes"]["state"] == "failed"
        replayed = data(await api.post(f"{base}/{delivery['id']}/retry"))
        assert replayed["attributes"]["state"] == "pending"
        advance(app, 1)
        await worker.tick()
        first, second = hook.at("/hook")
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    shown = data(await api.get(f"{base}/{delivery['id']}"))["attributes"]
    assert (shown["state"], shown["attempts"]) == ("succeeded", 2)


async def test_a_delivery_under_way_cannot_be_replayed(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        webhook = await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = deliverer_of(app)
        await worker.dispatch(app.state.ctx.clock.now())
        [job] = await worker.claim(app.state.ctx.clock.now(), 10)  # claimed, not yet sent
        path = f"{WEBHOOKS}/{webhook['id']}/deliveries/{job.delivery_id}/retry"
        response = await api.post(path)
    assert response.status_code == 409
    assert "being sent" in response.json()["errors"]


async def test_the_test_route_sends_a_sample_now_and_tells_the_outcome(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        hook.answer("/monitors", Answer(503, body="maintenance"))
        incidents = await create_webhook(api, hook.url())
        monitors = await create_webhook(api, hook.url("/monitors"), trigger_type="monitor_change")
        ok = data(await api.post(f"{WEBHOOKS}/{incidents['id']}/test"))["attributes"]
        failed = data(await api.post(f"{WEBHOOKS}/{monitors['id']}/test", {}))["attributes"]
        [sample] = hook.at("/hook")
        # a test is one attempt: nothing is retried, nothing goes to the team's other hooks
        await deliverer_of(app).tick()
        assert len(hook.received) == 2
    assert (ok["state"], ok["status_code"], ok["event"]) == ("succeeded", 200, "started")
    assert sample.json()["data"]["type"] == "incident"
    assert sample.json()["data"]["attributes"]["team_name"] == api.team_name
    assert (failed["state"], failed["status_code"], failed["response_excerpt"]) == (
        "failed",
        503,
        "maintenance",
    )
    assert failed["next_attempt_at"] is None


async def test_an_unknown_delivery_or_anothers_is_404(api: Api, other_api: Api) -> None:
    webhook = await create_webhook(api, "https://hooks.example.com/x")
    base = f"{WEBHOOKS}/{webhook['id']}/deliveries"
    assert (await api.get(f"{base}/999")).status_code == 404
    assert (await api.post(f"{base}/abc/retry")).status_code == 404
    assert (await other_api.get(base)).status_code == 404
    assert (await other_api.post(f"{WEBHOOKS}/{webhook['id']}/test")).status_code == 404
