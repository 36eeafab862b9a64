"""PagerDuty integrations (the hosted API's /api/v2/pager-duty-webhooks): the objects as its
Terraform provider sends and reads them, and incidents sent to the Events API v2.

PagerDuty's service cannot be installed here: a local aiohttp receiver stands in for its
Events API endpoint (WATCHPOST_PAGERDUTY_EVENTS_URL) and records what it is sent."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import configure, deliverer_of, deliveries, receiver
from tests.factories.incidents import create_reported_incident
from tests.factories.monitors import create_monitor

URL = "/api/v2/pager-duty-webhooks"
INCIDENTS = "/api/v2/incidents"


async def test_an_integration_reads_back_as_the_terraform_provider_sent_it(api: Api) -> None:
    sent = {
        "name": "Ops PagerDuty",
        "key": "abc123DEF456",
        "severity": "error",
        "notify_alongside_primary_responder": True,
    }
    created = data(await api.post(URL, sent), 201)
    assert created["type"] == "pagerduty_integration"
    assert {k: created["attributes"][k] for k in sent} == sent
    assert created["attributes"]["team_name"] == "acme"
    path = f"{URL}/{created['id']}"
    assert data(await api.get(path)) == created
    changed = data(await api.patch(path, {"severity": "info", "team_name": "acme"}))
    assert (
        changed["attributes"]["severity"] == "info" and changed["attributes"]["key"] == sent["key"]
    )
    minimal = data(await api.post(URL, {"key": "k2", "severity": "critical"}), 201)["attributes"]
    assert minimal["name"] == "PagerDuty" and minimal["notify_alongside_primary_responder"] is True
    listed = (await api.get(URL)).json()["data"]
    assert [item["id"] for item in listed] == [created["id"], str(int(created["id"]) + 1)]
    for bad in (
        {"key": "k", "severity": "urgent"},
        {"severity": "critical"},
        {"key": "has space", "severity": "critical"},
        {"key": "k", "severity": "critical", "service_key": "x"},
        {"key": "k", "severity": "critical", "team_name": "other"},
    ):
        assert (await api.post(URL, bad)).status_code == 422, bad
    _, fields = errors(await api.patch(path, {"key": None}))
    assert fields == ["key"]
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404


async def _run(app: FastAPI, rounds: int = 2) -> None:
    worker = deliverer_of(app)
    for _ in range(rounds):
        await worker.tick()


async def test_an_incident_triggers_acknowledges_and_resolves_one_alert(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as pagerduty:
        configure(app, pagerduty_events_url=pagerduty.url("/v2/enqueue"))
        await api.post(URL, {"key": "ROUTEKEY1", "severity": "warning"})
        quiet = {
            "key": "ROUTEKEY2",
            "severity": "info",
            "notify_alongside_primary_responder": False,
        }
        await api.post(URL, quiet)
        monitor = await create_monitor(api)
        incident = await create_reported_incident(
            api, email=False, monitor_id=int(monitor["id"]), metadata={"region": ["eu"]}
        )
        path = f"{INCIDENTS}/{incident['id']}"
        await _run(app)
        await api.post(f"{path}/acknowledge", {})
        await _run(app)
        await api.post(f"{path}/resolve", {})
        await _run(app)
        bodies: list[dict[str, Any]] = [r.json() for r in pagerduty.at("/v2/enqueue")]
        assert [b["event_action"] for b in bodies] == ["trigger", "acknowledge", "resolve"]
        assert {b["routing_key"] for b in bodies} == {"ROUTEKEY1"}  # not the quiet one
        assert {b["dedup_key"] for b in bodies} == {f"watchpost-incident-{incident['id']}"}
        trigger = bodies[0]["payload"]
        assert trigger["summary"] == "Checkout slow: Customers report timeouts"
        assert trigger["severity"] == "warning"
        assert trigger["source"] == f"Watchpost (monitor {monitor['id']})"
        assert trigger["custom_details"]["metadata"] == {"region": ["eu"]}
        told = (await api.get(f"{path}/deliveries")).json()["data"]
        assert {d["attributes"]["channel"] for d in told} == {"pagerduty"}
        assert all(d["attributes"]["state"] == "succeeded" for d in told)


async def test_a_policy_names_its_integration_and_a_deleted_one_takes_its_deliveries(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as pagerduty:
        configure(app, pagerduty_events_url=pagerduty.url("/v2/enqueue"))
        named = data(
            await api.post(
                URL,
                {
                    "key": "POLICYKEY",
                    "severity": "critical",
                    "notify_alongside_primary_responder": False,
                },
            ),
            201,
        )
        member = {"type": "pagerduty_integration", "id": int(named["id"])}
        step = {"type": "escalation", "wait_before": 0, "step_members": [member]}
        bad_step = {**step, "step_members": [{"type": "pagerduty_integration", "id": 999}]}
        _, fields = errors(await api.post("/api/v3/policies", {"name": "x", "steps": [bad_step]}))
        assert fields == ["steps[0].step_members[0]"]
        policy = data(await api.post("/api/v3/policies", {"name": "PD", "steps": [step]}), 201)
        incident = await create_reported_incident(api, email=False, policy_id=int(policy["id"]))
        await _run(app)
        await api.post(f"{INCIDENTS}/{incident['id']}/resolve", {})
        await _run(app)
        actions = [r.json()["event_action"] for r in pagerduty.at("/v2/enqueue")]
        assert actions == ["trigger", "resolve"]
        assert len(await deliveries(app)) == 2
        assert (await api.delete(f"{URL}/{named['id']}")).status_code == 204
        assert await deliveries(app) == []


async def test_a_refused_event_is_retried(app: FastAPI, api: Api) -> None:
    from tests.factories.delivery import Answer, advance

    async with receiver() as pagerduty:
        configure(
            app, pagerduty_events_url=pagerduty.url("/v2/enqueue"), delivery_retry_delays="0,5"
        )
        pagerduty.answer("/v2/enqueue", Answer(status=429, headers={"Retry-After": "1"}))
        await api.post(URL, {"key": "K", "severity": "critical"})
        await create_reported_incident(api, email=False)
        await _run(app)
        advance(app, 10)
        await _run(app)
        assert [r.json()["event_action"] for r in pagerduty.at("/v2/enqueue")] == ["trigger"] * 2
        [delivery] = await deliveries(app)
        assert delivery.state == "succeeded" and delivery.attempts == 2
