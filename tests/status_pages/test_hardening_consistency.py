"""What one object shows about another is consistent at once, not after the next sweep:
availability is always a number, heartbeats say when they were last pinged, status page
resources follow the heartbeats and items they show (and go with them), and deleting a
collector target settles its incident and its collector in the same transaction."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.engine import change, engine_of
from tests.factories.heartbeats import create_heartbeat
from tests.factories.objects import create_collector, create_target, target_body, unique_name
from tests.factories.servers import free_port
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.collectors.models import CollectorTarget
from watchpost.incidents.service import DELETED_TEXTS

PAGES = "/api/v2/status-pages"


async def _page(api: Api) -> str:
    created = data(await api.post(PAGES, {"subdomain": unique_name("page"), "history": 7}), 201)
    return f"{PAGES}/{created['id']}"


async def _add(api: Api, page: str, resource_type: str, resource_id: Any = None) -> str:
    body: dict[str, Any] = {"resource_type": resource_type}
    if resource_id is not None:
        body["resource_id"] = str(resource_id)
    else:
        body["public_name"] = unique_name("manual")
    created = data(await api.post(f"{page}/resources", body), 201)
    return f"{page}/resources/{created['id']}"


async def _attributes(api: Api, path: str) -> dict[str, Any]:
    found: dict[str, Any] = data(await api.get(path))["attributes"]
    return found


async def _listed(api: Api, page: str) -> list[dict[str, Any]]:
    response = await api.get(f"{page}/resources")
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]
    return items


# ------------------------------------------------------------------ availability


def _availability_schemas(node: Any) -> Iterator[dict[str, Any]]:
    """The `availability` of every status page resource schema (those with a history; a
    monitor's SLA is a percentage, documented as one)."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if (
            isinstance(properties, dict)
            and "availability" in properties
            and "status_history" in properties
        ):
            yield properties["availability"]
        for value in node.values():
            yield from _availability_schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _availability_schemas(value)


async def test_availability_is_a_number_when_nothing_was_observed(
    api: Api, client: httpx.AsyncClient
) -> None:
    page = await _page(api)
    monitor = data(await api.post("/api/v2/monitors", {"url": "https://example.com"}), 201)
    group = data(await api.post("/api/v2/monitor-groups", {"name": "empty"}), 201)
    for path in (
        await _add(api, page, "Monitor", monitor["id"]),
        await _add(api, page, "MonitorGroup", group["id"]),
        await _add(api, page, "ManuallyTrackedItem"),
    ):
        attributes = await _attributes(api, path)
        assert attributes["availability"] == 1.0, path
        # the honesty lives in the history: nothing observed is never a perfect day
        assert {day["status"] for day in attributes["status_history"]} == {"not_monitored"}
    for item in await _listed(api, page):
        assert isinstance(item["attributes"]["availability"], float)

    schema = (await client.get("/openapi.json")).json()
    documented = list(_availability_schemas(schema))
    assert documented
    for field in documented:
        assert field.get("type") == "number" and "anyOf" not in field, field
        assert (field.get("minimum"), field.get("maximum")) == (0, 1), field


# ------------------------------------------------------------------ last_ping_at


async def test_heartbeats_return_when_they_were_last_pinged(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    path = f"/api/v2/heartbeats/{made.id}"
    assert (await _attributes(api, path))["last_ping_at"] is None
    assert (await client.get(made.url)).status_code == 200  # pending → up
    assert (await _attributes(api, path))["last_ping_at"] == isoformat_ms(clock.now())
    clock.advance(timedelta(seconds=61.5))
    assert (await client.post(made.url)).status_code == 200  # up → up: the one-statement path
    assert (await _attributes(api, path))["last_ping_at"] == isoformat_ms(clock.now())
    clock.advance(timedelta(seconds=30))
    assert (await client.get(f"{made.url}/fail")).status_code == 200  # a failure is a ping too
    attributes = await _attributes(api, path)
    assert (attributes["status"], attributes["last_ping_at"]) == ("down", isoformat_ms(clock.now()))
    listed = (await api.get("/api/v2/heartbeats")).json()["data"]
    assert [item["attributes"]["last_ping_at"] for item in listed] == [isoformat_ms(clock.now())]
    sent = await api.patch(path, {"last_ping_at": None})
    assert sent.status_code == 422 and sent.json()["invalid_attributes"] == ["last_ping_at"]


# ------------------------------------------- heartbeat resources show the heartbeat now


async def test_a_heartbeat_resource_shows_the_heartbeat_state_at_once(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    page = await _page(api)
    made = await create_heartbeat(api)
    resource = await _add(api, page, "Heartbeat", made.id)
    assert (await _attributes(api, resource))["status"] == "not_monitored"  # pending

    assert (await client.get(made.url)).status_code == 200  # no engine sweep in between
    attributes = await _attributes(api, resource)
    assert (attributes["status"], attributes["availability"]) == ("operational", 1.0)
    assert attributes["status_history"][-1]["status"] == "not_monitored"  # nothing observed yet
    assert (await _attributes(api, page))["aggregate_state"] == "operational"

    assert (await client.get(f"{made.url}/fail")).status_code == 200
    clock.advance(timedelta(seconds=1))  # the incident has begun
    assert (await _attributes(api, resource))["status"] == "downtime"
    assert (await _attributes(api, page))["aggregate_state"] == "downtime"

    data(await api.patch(f"/api/v2/heartbeats/{made.id}", {"paused": True}))
    assert (await _attributes(api, resource))["status"] == "not_monitored"


async def test_a_heartbeat_group_resource_shows_its_members_at_once(
    api: Api, client: httpx.AsyncClient
) -> None:
    page = await _page(api)
    group = data(await api.post("/api/v2/heartbeat-groups", {"name": "jobs"}), 201)["id"]
    made = await create_heartbeat(api, heartbeat_group_id=int(group))
    resource = await _add(api, page, "HeartbeatGroup", group)
    assert (await _attributes(api, resource))["status"] == "not_monitored"
    assert (await client.get(made.url)).status_code == 200
    assert (await _attributes(api, resource))["status"] == "operational"


async def test_a_resource_group_resource_shows_its_monitor_group_as_monitor_group_does(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    page = await _page(api)
    group = data(await api.post("/api/v2/monitor-groups", {"name": "web"}), 201)["id"]
    # a closed port: the first check fails and, with no confirmation period, opens an incident
    body = {"url": "http://127.0.0.1:1/", "monitor_group_id": int(group), "confirmation_period": 0}
    data(await api.post("/api/v2/monitors", body), 201)
    await engine_of(app).tick(clock.now())
    clock.advance(timedelta(seconds=60))
    as_group = await _attributes(api, await _add(api, page, "MonitorGroup", group))
    as_resource_group = await _attributes(api, await _add(api, page, "ResourceGroup", group))
    assert as_resource_group["resource_type"] == "ResourceGroup"  # read back as sent
    assert as_resource_group["public_name"] == "web"
    for key in ("status", "availability", "status_history"):
        assert as_resource_group[key] == as_group[key], key
    assert as_group["status"] == "downtime"


async def test_heartbeat_maintenance_shows_at_once(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    now = clock.now()
    window = {
        "maintenance_from": (now - timedelta(hours=1)).strftime("%H:%M:%S"),
        "maintenance_to": (now + timedelta(hours=1)).strftime("%H:%M:%S"),
    }
    made = await create_heartbeat(api, **window)
    page = await _page(api)
    resource = await _add(api, page, "Heartbeat", made.id)
    assert (await client.get(made.url)).status_code == 200
    assert (await _attributes(api, resource))["status"] == "maintenance"


async def test_the_engine_observation_still_wins_once_recorded(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    page = await _page(api)
    resource = await _add(api, page, "Heartbeat", made.id)
    engine = engine_of(app)
    for _ in range(3):
        await engine.sweep(clock.now())
        clock.advance(timedelta(seconds=60))
        assert (await client.get(made.url)).status_code == 200
    attributes = await _attributes(api, resource)
    assert attributes["status"] == "operational"
    assert attributes["status_history"][-1]["status"] == "operational"


# --------------------------------------- deleting an item deletes the resources showing it


async def _monitor(api: Api) -> tuple[str, str]:
    created = data(await api.post("/api/v2/monitors", {"url": "https://example.com"}), 201)
    return "Monitor", f"/api/v2/monitors/{created['id']}"


async def _monitor_group(api: Api) -> tuple[str, str]:
    created = data(await api.post("/api/v2/monitor-groups", {"name": unique_name("mg")}), 201)
    return "MonitorGroup", f"/api/v2/monitor-groups/{created['id']}"


async def _resource_group(api: Api) -> tuple[str, str]:
    """A monitor group named by the hosted API's other name for it."""
    _, path = await _monitor_group(api)
    return "ResourceGroup", path


async def _heartbeat(api: Api) -> tuple[str, str]:
    made = await create_heartbeat(api)
    return "Heartbeat", f"/api/v2/heartbeats/{made.id}"


async def _heartbeat_group(api: Api) -> tuple[str, str]:
    created = data(await api.post("/api/v2/heartbeat-groups", {"name": unique_name("hg")}), 201)
    return "HeartbeatGroup", f"/api/v2/heartbeat-groups/{created['id']}"


async def _webhook(api: Api) -> tuple[str, str]:
    body = {"url": "https://hooks.example.com/a", "trigger_type": "incident_change"}
    created = data(await api.post("/api/v2/outgoing-webhooks", body), 201)
    return "WebhookIntegration", f"/api/v2/outgoing-webhooks/{created['id']}"


ITEMS: dict[str, Callable[[Api], Awaitable[tuple[str, str]]]] = {
    "monitor": _monitor,
    "monitor group": _monitor_group,
    "monitor group as ResourceGroup": _resource_group,
    "heartbeat": _heartbeat,
    "heartbeat group": _heartbeat_group,
    "outgoing webhook": _webhook,
}


@pytest.mark.parametrize("kind", sorted(ITEMS))
async def test_deleting_an_item_deletes_its_status_page_resources(api: Api, kind: str) -> None:
    resource_type, item = await ITEMS[kind](api)
    item_id = item.rsplit("/", 1)[1]
    _, other_item = await ITEMS[kind](api)
    page, second_page = await _page(api), await _page(api)
    first = await _add(api, page, "ManuallyTrackedItem")
    shown = await _add(api, page, resource_type, item_id)
    middle = await _add(api, page, "ManuallyTrackedItem")
    shown_again = await _add(api, page, resource_type, item_id)
    last = await _add(api, page, resource_type, other_item.rsplit("/", 1)[1])
    elsewhere = await _add(api, second_page, resource_type, item_id)
    data(await api.patch(last, {"fixed_position": True}))

    assert (await api.delete(item)).status_code == 204

    for gone in (shown, shown_again, elsewhere):
        assert (await api.get(gone)).status_code == 404, gone
    remaining = await _listed(api, page)
    by_url = {f"{page}/resources/{r['id']}": r["attributes"]["position"] for r in remaining}
    # positions re-packed: the others from 0, order kept; the fixed item keeps its number
    assert by_url == {first: 0, middle: 1, last: 4}
    assert await _listed(api, second_page) == []
    assert (await _attributes(api, page))["aggregate_state"] == "operational"


# ------------------------------- deleting a target settles its incident and its collector


async def _down_target(app: FastAPI, api: Api, collector_id: str) -> str:
    body = target_body("redis", host="127.0.0.1", port=free_port())
    target = await create_target(api, collector_id, body)
    await engine_of(app).tick()
    path = f"/api/v1/collectors/{collector_id}/targets/{target['id']}"
    assert (await _attributes(api, path))["status"] == "down"
    return path


async def _only_incident(api: Api) -> dict[str, Any]:
    listed = (await api.get("/api/v2/incidents")).json()["data"]
    assert len(listed) == 1, listed
    incident: dict[str, Any] = listed[0]
    return incident


async def test_deleting_a_down_target_resolves_its_incident_and_settles_its_collector(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    collector = await create_collector(api)
    collector_path = f"/api/v1/collectors/{collector['id']}"
    healthy = await create_target(
        api, collector["id"], target_body("redis", host="127.0.0.1", port=free_port())
    )
    await change(app, CollectorTarget, healthy["id"], enabled=False)  # never checked ...
    target = await _down_target(app, api, collector["id"])
    await change(app, CollectorTarget, healthy["id"], enabled=True, status="up")  # ... but up
    assert (await _attributes(api, collector_path))["status"] == "down"
    incident = await _only_incident(api)
    assert incident["attributes"]["status"] == "started"

    clock.advance(timedelta(seconds=5))
    assert (await api.delete(target)).status_code == 204

    assert (await _attributes(api, collector_path))["status"] == "up"  # no sweep needed
    resolved = (await _only_incident(api))["attributes"]
    assert resolved["status"] == "resolved"
    assert resolved["resolved_at"] == isoformat_ms(clock.now())
    assert resolved["collector_target_id"] is None
    timeline = (await api.get(f"/api/v2/incidents/{incident['id']}/timeline")).json()["data"]
    assert timeline[-1]["attributes"]["kind"] == "resolved"
    assert timeline[-1]["attributes"]["text"] == DELETED_TEXTS["collector_target_id"]


async def test_the_last_target_deleted_leaves_its_collector_pending(app: FastAPI, api: Api) -> None:
    collector = await create_collector(api)
    target = await _down_target(app, api, collector["id"])
    assert (await api.delete(target)).status_code == 204
    assert (await _attributes(api, f"/api/v1/collectors/{collector['id']}"))["status"] == "pending"


async def test_deleting_a_collector_resolves_its_targets_incidents(app: FastAPI, api: Api) -> None:
    collector = await create_collector(api)
    await _down_target(app, api, collector["id"])
    assert (await api.delete(f"/api/v1/collectors/{collector['id']}")).status_code == 204
    assert (await _only_incident(api))["attributes"]["status"] == "resolved"
