"""Manually reported incidents: POST /api/v2/incidents and its validation."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.incidents import (
    URL,
    create_engine_incident,
    create_heartbeat_id,
    create_monitor_id,
    create_reported_incident,
    ids,
)
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.incidents import check_details


async def test_minimal_report(api: Api, clock: FrozenClock) -> None:
    created = data(await api.post(URL, {"name": "Checkout slow", "summary": "Timeouts"}), 201)
    now = isoformat_ms(clock.now())
    assert created["type"] == "incident"
    assert created["attributes"] == {
        "name": "Checkout slow",
        "cause": "Timeouts",
        "status": "started",
        "started_at": now,
        "acknowledged_at": None,
        "acknowledged_by": None,
        "resolved_at": None,
        "resolved_by": None,
        "monitor_id": None,
        "heartbeat_id": None,
        "collector_target_id": None,
        "manual": True,
        "metadata": {},
        "call": False,
        "sms": False,
        "email": True,
        "push": False,
        "critical_alert": False,
        "escalation_policy_id": None,
        **dict.fromkeys(check_details.FIELDS),  # not opened by a checked monitor
        "team_name": "acme",
        "created_at": now,
        "updated_at": now,
    }
    assert data(await api.get(f"{URL}/{created['id']}")) == created
    items = (await api.get(f"{URL}/{created['id']}/timeline")).json()["data"]
    assert [item["attributes"] for item in items] == [
        {"at": now, "kind": "started", "text": "Timeouts", "by": "acme"}
    ]


async def test_full_report_against_a_monitor_and_a_heartbeat(api: Api) -> None:
    monitor_id = await create_monitor_id(api)
    heartbeat_id = await create_heartbeat_id(api)
    on_monitor = await create_reported_incident(
        api,
        monitor_id=monitor_id,
        requester_email="ann@example.com",
        metadata={"service": ["checkout", "cart"], "severity": ["high"]},
    )
    attributes = on_monitor["attributes"]
    assert (attributes["monitor_id"], attributes["heartbeat_id"]) == (monitor_id, None)
    assert attributes["metadata"] == {"service": ["checkout", "cart"], "severity": ["high"]}
    on_heartbeat = await create_reported_incident(api, heartbeat_id=heartbeat_id)
    assert on_heartbeat["attributes"]["heartbeat_id"] == heartbeat_id
    items = (await api.get(f"{URL}/{on_monitor['id']}/timeline")).json()["data"]
    assert items[0]["attributes"]["by"] == "ann@example.com"


async def test_name_and_summary_are_required_and_reported_together(api: Api) -> None:
    messages, fields = errors(await api.post(URL, {}))
    assert fields == ["name", "summary"]
    assert messages == ["name is required", "summary is required"]
    _, fields = errors(await api.post(URL, {"name": " ", "summary": "\t"}))
    assert fields == ["name", "summary"]
    assert await ids(api) == []


async def test_cause_is_not_an_input(api: Api) -> None:
    _, fields = errors(await api.post(URL, {"name": "x", "cause": "y"}))
    assert fields == ["summary", "cause"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 5}, "name"),
        ({"name": "a" * 256}, "name"),
        ({"summary": ["x"]}, "summary"),
        ({"summary": "a" * 10_001}, "summary"),
        ({"monitor_id": "1"}, "monitor_id"),
        ({"heartbeat_id": 1.5}, "heartbeat_id"),
        ({"requester_email": ""}, "requester_email"),
        ({"metadata": []}, "metadata"),
        ({"metadata": {"k": "v"}}, "metadata"),
        ({"metadata": {"k": [1]}}, "metadata"),
        ({"metadata": {"k": [""]}}, "metadata"),
        ({"metadata": {" ": ["v"]}}, "metadata"),
        ({"metadata": {f"k{n}": ["v"] for n in range(51)}}, "metadata"),
        ({"metadata": {"k": ["v"] * 101}}, "metadata"),
        ({"manual": False}, "manual"),
        ({"status": "resolved"}, "status"),
    ],
)
async def test_bad_values_are_422_naming_the_field(
    api: Api, body: dict[str, Any], field: str
) -> None:
    full = {"name": "Checkout slow", "summary": "Timeouts", **body}
    _, fields = errors(await api.post(URL, full))
    assert fields == [field]


async def test_monitor_and_heartbeat_must_be_the_teams(api: Api, other_api: Api) -> None:
    theirs_monitor = await create_monitor_id(other_api)
    theirs_heartbeat = await create_heartbeat_id(other_api)
    for body in (
        {"monitor_id": theirs_monitor},
        {"monitor_id": 987654},
        {"heartbeat_id": theirs_heartbeat},
        {"heartbeat_id": 987654},
    ):
        field, value = next(iter(body.items()))
        messages, fields = errors(await api.post(URL, {"name": "x", "summary": "y", **body}))
        assert fields == [field]
        noun = field.removesuffix("_id")
        assert messages == [f"{field} {value} does not name a {noun} of this team"]
    assert await ids(api) == []
    assert await ids(other_api) == []


async def test_monitor_and_heartbeat_together_are_refused(api: Api) -> None:
    body = {
        "name": "x",
        "summary": "y",
        "monitor_id": await create_monitor_id(api),
        "heartbeat_id": await create_heartbeat_id(api),
    }
    _, fields = errors(await api.post(URL, body))
    assert fields == ["monitor_id", "heartbeat_id"]


async def test_one_open_incident_per_monitor(app: FastAPI, api: Api) -> None:
    monitor_id = await create_monitor_id(api)
    open_one = await create_engine_incident(app, api, monitor_id=monitor_id)
    response = await api.post(URL, {"name": "x", "summary": "y", "monitor_id": monitor_id})
    assert response.status_code == 409
    assert response.json() == {
        "errors": f"The monitor already has an open incident (id = {open_one}); "
        "acknowledge or resolve that one"
    }
    # acknowledged is still open
    data(await api.post(f"{URL}/{open_one}/acknowledge"))
    assert (
        await api.post(URL, {"name": "x", "summary": "y", "monitor_id": monitor_id})
    ).status_code == 409
    data(await api.post(f"{URL}/{open_one}/resolve"))
    await create_reported_incident(api, monitor_id=monitor_id)
    # incidents not tied to an object never conflict
    await create_reported_incident(api)
    await create_reported_incident(api)


async def test_one_open_incident_per_heartbeat(api: Api) -> None:
    heartbeat_id = await create_heartbeat_id(api)
    await create_reported_incident(api, heartbeat_id=heartbeat_id)
    response = await api.post(URL, {"name": "x", "summary": "y", "heartbeat_id": heartbeat_id})
    assert response.status_code == 409


async def test_null_optionals_mean_absent(api: Api) -> None:
    attributes = (
        await create_reported_incident(
            api, monitor_id=None, heartbeat_id=None, metadata=None, requester_email=None
        )
    )["attributes"]
    assert (attributes["monitor_id"], attributes["metadata"]) == (None, {})


async def test_the_hosted_apis_alert_fields_are_stored_and_shown(api: Api) -> None:
    policy = data(await api.post("/api/v3/policies", {"name": "Ops"}), 201)
    created = data(
        await api.post(
            URL,
            {
                "name": "Checkout slow",
                "summary": "Timeouts",
                "description": "Since the 10:00 deploy",
                "call": True,
                "sms": True,
                "email": False,
                "push": True,
                "critical_alert": True,
                "team_wait": 300,
                "policy_id": int(policy["id"]),
            },
        ),
        201,
    )
    attributes = created["attributes"]
    assert (attributes["call"], attributes["sms"], attributes["email"], attributes["push"]) == (
        True,
        True,
        False,
        True,
    )
    assert attributes["escalation_policy_id"] == int(policy["id"])
    _, fields = errors(await api.post(URL, {"name": "x", "summary": "y", "policy_id": 999}))
    assert fields == ["policy_id"]
    assert data(await api.get(f"{URL}/{created['id']}"))["attributes"] == attributes


async def test_an_incident_about_a_monitor_takes_its_alert_settings(app: FastAPI, api: Api) -> None:
    monitor = data(
        await api.post(
            "/api/v2/monitors", {"url": "https://example.com", "email": False, "call": True}
        ),
        201,
    )
    incident_id = await create_engine_incident(app, api, monitor_id=int(monitor["id"]))
    attributes = data(await api.get(f"{URL}/{incident_id}"))["attributes"]
    assert (attributes["email"], attributes["call"]) == (False, True)
