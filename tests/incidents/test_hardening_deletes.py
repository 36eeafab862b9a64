"""Deleting a monitor or heartbeat resolves its open incident in the same transaction.

Once the object is gone the incident's reference is null and no check or ping can ever
resolve it, so the delete does, by Watchpost, as deleting a collector target does. Deleting
a group only ungroups its members: they are still watched and keep their incidents.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.engine import engine_of
from tests.factories.heartbeats import create_heartbeat
from tests.factories.monitors import create_monitor
from tests.factories.servers import free_port
from watchpost.clock import FrozenClock, isoformat_ms

INCIDENTS = "/api/v2/incidents"


async def _incident(api: Api, incident_id: str) -> dict[str, Any]:
    found: dict[str, Any] = data(await api.get(f"{INCIDENTS}/{incident_id}"))["attributes"]
    return found


async def _open_incidents(api: Api) -> list[dict[str, Any]]:
    response = await api.get(f"{INCIDENTS}?resolved=false")
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["data"]
    return found


async def _last_event(api: Api, incident_id: str) -> dict[str, Any]:
    response = await api.get(f"{INCIDENTS}/{incident_id}/timeline")
    assert response.status_code == 200, response.text
    event: dict[str, Any] = response.json()["data"][-1]["attributes"]
    return event


async def _down_monitor(app: FastAPI, api: Api) -> tuple[str, str]:
    """A monitor of a closed port, checked once: down, with its incident open."""
    created = await create_monitor(
        api,
        url=f"http://127.0.0.1:{free_port()}/",
        check_frequency=60,
        confirmation_period=0,
        recovery_period=0,
    )
    await engine_of(app).tick()
    monitor_id = str(created["id"])
    (incident,) = [
        i for i in await _open_incidents(api) if str(i["attributes"]["monitor_id"]) == monitor_id
    ]
    return monitor_id, str(incident["id"])


async def _assert_resolved_by_delete(
    api: Api, incident_id: str, clock: FrozenClock, text: str, reference: str
) -> None:
    attributes = await _incident(api, incident_id)
    assert attributes["status"] == "resolved"
    assert attributes["resolved_at"] == isoformat_ms(clock.now())
    assert attributes["resolved_by"] == "Watchpost"
    assert attributes[reference] is None
    event = await _last_event(api, incident_id)
    assert (event["kind"], event["text"], event["by"]) == ("resolved", text, "Watchpost")
    assert event["at"] == isoformat_ms(clock.now())


async def test_deleting_a_down_monitor_resolves_its_incident(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor_id, incident_id = await _down_monitor(app, api)
    _, other_incident = await _down_monitor(app, api)
    clock.advance(timedelta(seconds=7))
    assert (await api.delete(f"/api/v2/monitors/{monitor_id}")).status_code == 204
    await _assert_resolved_by_delete(
        api, incident_id, clock, "Resolved: the monitor was deleted.", "monitor_id"
    )
    # another monitor's incident is not touched
    assert (await _incident(api, other_incident))["status"] == "started"
    assert [i["id"] for i in await _open_incidents(api)] == [other_incident]


async def test_deleting_a_failed_heartbeat_resolves_its_incident(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    assert (await client.get(f"{made.url}/fail")).status_code == 200
    (incident,) = await _open_incidents(api)
    assert incident["attributes"]["heartbeat_id"] == made.id
    clock.advance(timedelta(seconds=3))
    assert (await api.delete(f"/api/v2/heartbeats/{made.id}")).status_code == 204
    await _assert_resolved_by_delete(
        api, str(incident["id"]), clock, "Resolved: the heartbeat was deleted.", "heartbeat_id"
    )


async def test_a_reported_incident_is_resolved_with_its_monitor(
    api: Api, clock: FrozenClock
) -> None:
    monitor_id = str((await create_monitor(api, url="https://example.com"))["id"])
    body = {"name": "Checkout slow", "summary": "customers report", "monitor_id": int(monitor_id)}
    reported = data(await api.post(INCIDENTS, body), 201)
    assert reported["attributes"]["manual"] is True
    clock.advance(timedelta(seconds=1))
    assert (await api.delete(f"/api/v2/monitors/{monitor_id}")).status_code == 204
    await _assert_resolved_by_delete(
        api, str(reported["id"]), clock, "Resolved: the monitor was deleted.", "monitor_id"
    )


async def test_a_resolved_incident_is_left_as_it_was(api: Api, clock: FrozenClock) -> None:
    made = await create_heartbeat(api)
    body = {"name": "Backup late", "summary": "by hand", "heartbeat_id": made.id}
    reported = data(await api.post(INCIDENTS, body), 201)
    resolved = await api.post(f"{INCIDENTS}/{reported['id']}/resolve", {})
    assert resolved.status_code == 200, resolved.text
    before = await _incident(api, str(reported["id"]))
    clock.advance(timedelta(minutes=5))
    assert (await api.delete(f"/api/v2/heartbeats/{made.id}")).status_code == 204
    after = await _incident(api, str(reported["id"]))
    assert after == {**before, "heartbeat_id": None}
    assert (await _last_event(api, str(reported["id"])))["text"] != (
        "Resolved: the heartbeat was deleted."
    )


async def test_deleting_groups_keeps_their_members_incidents_open(
    api: Api, clock: FrozenClock
) -> None:
    group = data(await api.post("/api/v2/monitor-groups", {"name": "Shop"}), 201)["id"]
    monitor_id = str(
        (await create_monitor(api, url="https://example.com", monitor_group_id=int(group)))["id"]
    )
    beat_group = data(await api.post("/api/v2/heartbeat-groups", {"name": "Jobs"}), 201)["id"]
    made = await create_heartbeat(api, heartbeat_group_id=int(beat_group))
    for subject in ({"monitor_id": int(monitor_id)}, {"heartbeat_id": made.id}):
        body = {"name": "Investigating", "summary": "by hand", **subject}
        assert (await api.post(INCIDENTS, body)).status_code == 201
    clock.advance(timedelta(seconds=1))
    assert (await api.delete(f"/api/v2/monitor-groups/{group}")).status_code == 204
    assert (await api.delete(f"/api/v2/heartbeat-groups/{beat_group}")).status_code == 204
    # the members are still watched, ungrouped, and their incidents stay theirs and open
    assert len(await _open_incidents(api)) == 2
    assert (
        data(await api.get(f"/api/v2/monitors/{monitor_id}"))["attributes"]["monitor_group_id"]
        is None
    )
