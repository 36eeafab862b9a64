"""Incident and monitor changes reach outgoing webhooks: written with the change, sent by a
delivery worker to a real local receiver, in the hosted API's payload shape."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from tests.factories.delivery import (
    create_webhook,
    deliverer_of,
    deliveries,
    events,
    receiver,
)
from tests.factories.engine import engine_of, recording_server
from tests.factories.incidents import create_monitor_id, create_reported_incident
from tests.factories.monitors import create_monitor
from watchpost.delivery.models import DeliveryEvent
from watchpost.incidents import transitions
from watchpost.incidents.models import Incident

INCIDENTS = "/api/v2/incidents"


async def test_a_reported_incident_reaches_the_webhook_as_the_api_shows_it(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        monitor_id = await create_monitor_id(api)
        incident = await create_reported_incident(api, monitor_id=monitor_id)
        report = await deliverer_of(app).tick()
        assert (report.dispatched, report.sent, report.recorded) == (1, 1, 1)
        [request] = hook.at("/hook")
    assert request.method == "POST"
    assert request.headers["Content-Type"] == "application/json"
    body = request.json()
    assert body["event"] == "started"
    shown = data(await api.get(f"{INCIDENTS}/{incident['id']}"))
    assert body["data"]["attributes"] == shown["attributes"]
    assert body["data"]["id"] == incident["id"] and body["data"]["type"] == "incident"
    assert body["data"]["relationships"] == {
        "monitor": {"data": {"id": str(monitor_id), "type": "monitor"}}
    }
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts, delivery.status_code) == ("succeeded", 1, 200)
    assert delivery.response_excerpt == "ok" and delivery.delivered_at is not None


async def test_acknowledge_and_resolve_follow_with_the_same_incident(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        incident = await create_reported_incident(api)
        path = f"{INCIDENTS}/{incident['id']}"
        assert (
            await api.post(f"{path}/acknowledge", {"acknowledged_by": "ann@example.com"})
        ).status_code == 200
        assert (await api.post(f"{path}/resolve", {})).status_code == 200
        await deliverer_of(app).tick()
        bodies = [request.json() for request in hook.at("/hook")]
    assert [body["event"] for body in bodies] == ["started", "acknowledged", "resolved"]
    assert bodies[1]["data"]["attributes"]["acknowledged_by"] == "ann@example.com"
    assert bodies[1]["data"]["attributes"]["status"] == "acknowledged"
    assert bodies[2]["data"]["attributes"]["status"] == "resolved"
    # One message id per event, so receivers can drop a repeat of one without losing another.
    assert len({request.headers["webhook-id"] for request in hook.at("/hook")}) == 3


async def test_only_the_chosen_incident_events_are_sent(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        await create_webhook(
            api,
            hook.url(),
            on_incident_started=False,
            on_incident_acknowledged=False,
            on_incident_resolved=True,
        )
        await create_webhook(api, hook.url("/monitors"), trigger_type="monitor_change")
        incident = await create_reported_incident(api)
        path = f"{INCIDENTS}/{incident['id']}"
        await api.post(f"{path}/acknowledge", {})
        await api.post(f"{path}/resolve", {})
        await deliverer_of(app).tick()
        assert [request.json()["event"] for request in hook.at("/hook")] == ["resolved"]
        assert hook.at("/monitors") == []


async def test_a_change_that_fails_writes_no_event(app: FastAPI, api: Api) -> None:
    incident = await create_reported_incident(api)
    path = f"{INCIDENTS}/{incident['id']}"
    assert (await api.post(f"{path}/resolve", {})).status_code == 200
    assert (await api.post(f"{path}/resolve", {})).status_code == 409
    assert (await api.post(f"{path}/acknowledge", {})).status_code == 409
    assert [event.event for event in await events(app)] == ["started", "resolved"]


async def test_an_event_rolled_back_with_its_change_is_never_sent(app: FastAPI, api: Api) -> None:
    ctx = app.state.ctx
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        with pytest.raises(RuntimeError):
            async with ctx.db.write_sessions() as session, session.begin():
                await transitions.start(
                    session, team_id=api.team_id, name="x", cause="y", at=ctx.clock.now()
                )
                assert len(list(await session.scalars(select(DeliveryEvent)))) == 1
                raise RuntimeError("the change fails after its event was written")
        assert await events(app) == []
        await deliverer_of(app).tick()
        assert hook.received == []


async def test_monitor_events_reach_monitor_webhooks(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        await create_webhook(api, hook.url(), trigger_type="monitor_change")
        await create_webhook(api, hook.url("/incidents"))  # not told of monitors
        monitor = await create_monitor(api, pronounceable_name="Shop")
        path = f"/api/v2/monitors/{monitor['id']}"
        assert (await api.patch(path, {"check_frequency": 60})).status_code == 200
        assert (await api.patch(path, {})).status_code == 200  # nothing changed: no event
        assert (await api.patch(path, {"paused": True})).status_code == 200
        assert (await api.patch(path, {"paused": False})).status_code == 200
        assert (await api.delete(path)).status_code == 204
        await deliverer_of(app).tick()
        bodies = [request.json() for request in hook.at("/hook")]
        assert hook.at("/incidents") == []
    assert [body["event"] for body in bodies] == [
        "created",
        "updated",
        "paused",
        "unpaused",
        "deleted",
    ]
    assert all(body["data"]["type"] == "monitor" for body in bodies)
    assert bodies[0]["data"]["attributes"]["pronounceable_name"] == "Shop"
    assert bodies[1]["data"]["attributes"]["check_frequency"] == 60
    assert bodies[2]["data"]["attributes"]["paused"] is True
    assert bodies[0]["data"]["attributes"]["team_name"] == api.team_name


async def test_other_teams_webhooks_hear_nothing(app: FastAPI, api: Api, other_api: Api) -> None:
    async with receiver() as hook:
        await create_webhook(other_api, hook.url())
        await create_reported_incident(api)
        await deliverer_of(app).tick()
        assert hook.received == []


async def test_a_monitor_going_down_reaches_the_webhook(app: FastAPI, api: Api) -> None:
    """The whole path: a check fails, the engine opens the incident, the worker sends it."""
    async with recording_server() as site, receiver() as hook:
        site.status["/down"] = 500
        await create_webhook(api, hook.url())
        await create_monitor(api, url=site.url("/down"), confirmation_period=0)
        await engine_of(app).tick()
        await deliverer_of(app).tick()
        [request] = hook.at("/hook")
    body = request.json()
    assert body["event"] == "started"
    assert body["data"]["relationships"]["monitor"]["data"]["type"] == "monitor"
    assert "500" in body["data"]["attributes"]["cause"]
    async with app.state.ctx.db.read_sessions() as session:
        incident = await session.get(Incident, int(body["data"]["id"]))
    assert incident is not None and incident.resolved_at is None


async def test_pausing_a_monitor_group_tells_monitor_webhooks(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        group = data(await api.post("/api/v2/monitor-groups", {"name": "Shop"}), 201)
        await create_monitor(api, monitor_group_id=int(group["id"]))
        await create_monitor(api, monitor_group_id=int(group["id"]), paused=True)
        await deliverer_of(app).tick()  # the creations are dispatched: to nobody yet
        await create_webhook(api, hook.url(), trigger_type="monitor_change")
        path = f"/api/v2/monitor-groups/{group['id']}"
        assert (await api.patch(path, {"paused": True})).status_code == 200
        assert (await api.patch(path, {"paused": False})).status_code == 200
        await deliverer_of(app).tick()
        bodies = [request.json() for request in hook.at("/hook")]
    # one monitor was running: paused with the group; then both unpaused
    assert [body["event"] for body in bodies] == ["paused", "unpaused", "unpaused"]
