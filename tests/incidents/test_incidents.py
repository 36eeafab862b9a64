"""Incidents through /api/v2/incidents: read, acknowledge, resolve, timeline, delete, isolation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

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
from watchpost.context import AppContext
from watchpost.incidents import check_details, transitions
from watchpost.incidents.models import Incident


async def timeline(api: Api, incident_id: str) -> list[dict[str, Any]]:
    body = (await api.get(f"{URL}/{incident_id}/timeline")).json()
    assert "data" in body, body
    for item in body["data"]:
        assert item["type"] == "incident_timeline_item"
        assert isinstance(item["id"], str)
    return [item["attributes"] for item in body["data"]]


async def test_engine_incident_reads_with_full_shape(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor_id = await create_monitor_id(api)
    incident_id = await create_engine_incident(
        app, api, monitor_id=monitor_id, metadata={"region": ["eu", "us"]}
    )
    got = data(await api.get(f"{URL}/{incident_id}"))
    now = isoformat_ms(clock.now())
    assert got == {
        "id": incident_id,
        "type": "incident",
        "attributes": {
            "name": "example.com",
            "cause": "Status 500",
            "status": "started",
            "started_at": now,
            "acknowledged_at": None,
            "acknowledged_by": None,
            "resolved_at": None,
            "resolved_by": None,
            "monitor_id": monitor_id,
            "heartbeat_id": None,
            "collector_target_id": None,
            "manual": False,
            "metadata": {"region": ["eu", "us"]},
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
        },
    }
    assert await timeline(api, incident_id) == [
        {"at": now, "kind": "started", "text": "Status 500", "by": None}
    ]


async def test_list_returns_the_teams_incidents_oldest_first(app: FastAPI, api: Api) -> None:
    monitor_id = await create_monitor_id(api)
    first = await create_engine_incident(app, api, monitor_id=monitor_id)
    second = (await create_reported_incident(api))["id"]
    body = (await api.get(URL)).json()
    assert [item["id"] for item in body["data"]] == [first, second]
    assert [item["attributes"]["manual"] for item in body["data"]] == [False, True]
    assert body["pagination"]["last"].endswith("page=1&per_page=50")


async def test_acknowledge_then_resolve(api: Api, clock: FrozenClock) -> None:
    incident_id = (await create_reported_incident(api, requester_email="ann@example.com"))["id"]
    started = isoformat_ms(clock.now())
    acknowledged = isoformat_ms(clock.advance(60))
    acked = data(
        await api.post(f"{URL}/{incident_id}/acknowledge", {"acknowledged_by": "bob@example.com"})
    )
    assert acked["id"] == incident_id
    attributes = acked["attributes"]
    assert (attributes["status"], attributes["acknowledged_at"], attributes["acknowledged_by"]) == (
        "acknowledged",
        acknowledged,
        "bob@example.com",
    )
    assert (attributes["resolved_at"], attributes["updated_at"]) == (None, acknowledged)
    resolved = isoformat_ms(clock.advance(600))
    attributes = data(
        await api.post(f"{URL}/{incident_id}/resolve", {"resolved_by": "Carol Smith"})
    )["attributes"]
    assert attributes["status"] == "resolved"
    assert (attributes["acknowledged_at"], attributes["acknowledged_by"]) == (
        acknowledged,
        "bob@example.com",
    )
    assert (attributes["resolved_at"], attributes["resolved_by"]) == (resolved, "Carol Smith")
    assert attributes["updated_at"] == resolved
    assert attributes["started_at"] == started
    # what the actions answered is what a later read shows
    assert data(await api.get(f"{URL}/{incident_id}"))["attributes"] == attributes
    assert await timeline(api, incident_id) == [
        {
            "at": started,
            "kind": "started",
            "text": "Customers report timeouts",
            "by": "ann@example.com",
        },
        {
            "at": acknowledged,
            "kind": "acknowledged",
            "text": "Acknowledged by bob@example.com",
            "by": "bob@example.com",
        },
        {
            "at": resolved,
            "kind": "resolved",
            "text": "Resolved by Carol Smith",
            "by": "Carol Smith",
        },
    ]


async def test_who_defaults_to_the_team_name(api: Api) -> None:
    incident_id = (await create_reported_incident(api))["id"]
    for action, body in (("acknowledge", None), ("resolve", {"resolved_by": None})):
        response = await api.post(f"{URL}/{incident_id}/{action}", body)
        assert response.status_code == 200, response.text
    attributes = data(await api.get(f"{URL}/{incident_id}"))["attributes"]
    assert (attributes["acknowledged_by"], attributes["resolved_by"]) == ("acme", "acme")
    assert [item["by"] for item in await timeline(api, incident_id)] == ["acme"] * 3


async def test_resolve_an_unacknowledged_incident(api: Api, clock: FrozenClock) -> None:
    incident_id = (await create_reported_incident(api))["id"]
    resolved = isoformat_ms(clock.advance(30))
    attributes = data(await api.post(f"{URL}/{incident_id}/resolve"))["attributes"]
    assert attributes["status"] == "resolved"
    assert (attributes["acknowledged_at"], attributes["acknowledged_by"]) == (None, None)
    assert (attributes["resolved_at"], attributes["resolved_by"]) == (resolved, "acme")
    assert [item["kind"] for item in await timeline(api, incident_id)] == ["started", "resolved"]


async def test_twice_is_409_and_changes_nothing(api: Api, clock: FrozenClock) -> None:
    incident_id = (await create_reported_incident(api))["id"]
    data(await api.post(f"{URL}/{incident_id}/acknowledge"))
    before = data(await api.get(f"{URL}/{incident_id}"))
    clock.advance(10)
    again = await api.post(f"{URL}/{incident_id}/acknowledge", {"acknowledged_by": "x@y.z"})
    assert again.status_code == 409
    assert again.json() == {"errors": f"Incident {incident_id} is already acknowledged"}
    assert data(await api.get(f"{URL}/{incident_id}")) == before

    data(await api.post(f"{URL}/{incident_id}/resolve"))
    before = data(await api.get(f"{URL}/{incident_id}"))
    items = await timeline(api, incident_id)
    clock.advance(10)
    for action in ("resolve", "acknowledge"):
        response = await api.post(f"{URL}/{incident_id}/{action}")
        assert response.status_code == 409, action
        assert response.json() == {"errors": f"Incident {incident_id} is already resolved"}
    assert data(await api.get(f"{URL}/{incident_id}")) == before
    assert await timeline(api, incident_id) == items


async def test_action_bodies_are_validated(api: Api) -> None:
    incident_id = (await create_reported_incident(api))["id"]
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("acknowledge", {"acknowledged_by": "  "}, "acknowledged_by"),
        ("acknowledge", {"acknowledged_by": 5}, "acknowledged_by"),
        ("acknowledge", {"acknowledged_by": "a" * 321}, "acknowledged_by"),
        ("acknowledge", {"resolved_by": "a@b.c"}, "resolved_by"),
        ("resolve", {"resolved_by": ""}, "resolved_by"),
        ("resolve", {"by": "a@b.c"}, "by"),
    ]
    for action, body, field in cases:
        _, fields = errors(await api.post(f"{URL}/{incident_id}/{action}", body))
        assert fields == [field], (action, body)
    assert data(await api.get(f"{URL}/{incident_id}"))["attributes"]["status"] == "started"
    response = await api.post(f"{URL}/{incident_id}/resolve", content=b"[1]")
    assert response.status_code in (400, 415)


async def test_who_is_stored_trimmed(api: Api) -> None:
    incident_id = (await create_reported_incident(api))["id"]
    body = {"acknowledged_by": "  dave@example.com "}
    attributes = data(await api.post(f"{URL}/{incident_id}/acknowledge", body))["attributes"]
    assert attributes["acknowledged_by"] == "dave@example.com"


async def test_timeline_is_in_time_order(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    monitor_id = await create_monitor_id(api)
    incident_id = await create_engine_incident(app, api, monitor_id=monitor_id)
    start = clock.now()
    clock.advance(120)
    data(await api.post(f"{URL}/{incident_id}/acknowledge"))
    # the engine may record a check that happened before the acknowledgement after it
    ctx: AppContext = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        incident = await session.get(Incident, int(incident_id))
        assert incident is not None
        await transitions.apply(
            session,
            incident,
            transitions.Change.CHECK_FAILED,
            text="Status 502",
            at=start + timedelta(seconds=60),
        )
    items = await timeline(api, incident_id)
    assert [(item["kind"], item["text"]) for item in items] == [
        ("started", "Status 500"),
        ("check_failed", "Status 502"),
        ("acknowledged", "Acknowledged by acme"),
    ]
    page = (await api.get(f"{URL}/{incident_id}/timeline?per_page=2&page=2")).json()
    assert [item["attributes"]["kind"] for item in page["data"]] == ["acknowledged"]
    assert page["pagination"]["prev"].endswith("page=1&per_page=2")


async def test_delete(api: Api) -> None:
    monitor_id = await create_monitor_id(api)
    kept = (await create_reported_incident(api, name="kept"))["id"]
    gone = (await create_reported_incident(api, name="gone", monitor_id=monitor_id))["id"]
    response = await api.delete(f"{URL}/{gone}")
    assert (response.status_code, response.content) == (204, b"")
    for path in (f"{URL}/{gone}", f"{URL}/{gone}/timeline"):
        missing = await api.get(path)
        assert missing.status_code == 404
        assert missing.json() == {
            "errors": f"Resource type incident with id = {gone} was not found"
        }
    assert (await api.delete(f"{URL}/{gone}")).status_code == 404
    assert await ids(api) == [kept]
    # the monitor is untouched and may get a new incident
    assert (await api.get(f"/api/v2/monitors/{monitor_id}")).status_code == 200
    await create_reported_incident(api, monitor_id=monitor_id)


async def test_unknown_and_malformed_ids_are_404(api: Api) -> None:
    for raw in ("999", "abc", "-1", "1.5"):
        for method, suffix in (
            ("GET", ""),
            ("DELETE", ""),
            ("POST", "/acknowledge"),
            ("POST", "/resolve"),
            ("GET", "/timeline"),
        ):
            response = await api.client.request(method, f"{URL}/{raw}{suffix}", headers=api.headers)
            assert response.status_code == 404, (method, raw, suffix)
            assert response.json() == {
                "errors": f"Resource type incident with id = {raw} was not found"
            }


async def test_incident_outlives_its_monitor_and_heartbeat(app: FastAPI, api: Api) -> None:
    monitor_id = await create_monitor_id(api)
    heartbeat_id = await create_heartbeat_id(api)
    on_monitor = await create_engine_incident(app, api, monitor_id=monitor_id)
    on_heartbeat = await create_engine_incident(app, api, heartbeat_id=heartbeat_id)
    assert (await api.delete(f"/api/v2/monitors/{monitor_id}")).status_code == 204
    assert (await api.delete(f"/api/v2/heartbeats/{heartbeat_id}")).status_code == 204
    for incident_id in (on_monitor, on_heartbeat):
        attributes = data(await api.get(f"{URL}/{incident_id}"))["attributes"]
        assert (attributes["monitor_id"], attributes["heartbeat_id"]) == (None, None)
        assert attributes["status"] == "resolved"  # by the delete: nothing else could


async def test_pagination(api: Api) -> None:
    created = [(await create_reported_incident(api, name=f"incident {n}"))["id"] for n in range(5)]
    seen: list[str] = []
    for page in (1, 2, 3):
        body = (await api.get(f"{URL}?resolved=false&per_page=2&page={page}")).json()
        seen += [item["id"] for item in body["data"]]
        links = body["pagination"]
        assert (
            links["last"] == "http://testserver/api/v2/incidents?resolved=false&page=3&per_page=2"
        )
        assert (links["next"] is None) == (page == 3)
    assert seen == created
    _, fields = errors(await api.get(f"{URL}?page=0&per_page=x"))
    assert fields == ["page", "per_page"]


async def test_other_teams_see_nothing_and_change_nothing(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    monitor_id = await create_monitor_id(api)
    incident_id = await create_engine_incident(app, api, monitor_id=monitor_id)
    before = data(await api.get(f"{URL}/{incident_id}"))
    items = await timeline(api, incident_id)
    assert await ids(other_api) == []
    assert await ids(other_api, f"monitor_id={monitor_id}") == []
    expected = {"errors": f"Resource type incident with id = {incident_id} was not found"}
    for method, suffix in (
        ("GET", ""),
        ("GET", "/timeline"),
        ("POST", "/acknowledge"),
        ("POST", "/resolve"),
        ("DELETE", ""),
    ):
        response = await other_api.client.request(
            method, f"{URL}/{incident_id}{suffix}", headers=other_api.headers
        )
        assert (response.status_code, response.json()) == (404, expected), (method, suffix)
    assert data(await api.get(f"{URL}/{incident_id}")) == before
    assert await timeline(api, incident_id) == items
    # the other team cannot report against acme's monitor either
    response = await other_api.post(URL, {"name": "x", "summary": "y", "monitor_id": monitor_id})
    _, fields = errors(response)
    assert fields == ["monitor_id"]
    assert await ids(api) == [incident_id]
