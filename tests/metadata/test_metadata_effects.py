"""What metadata records do elsewhere: status page resources marked down by the metadata of
incidents, escalation policies branching on it."""

from __future__ import annotations

from datetime import timedelta

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import create_member
from tests.factories.heartbeats import create_heartbeat
from tests.factories.incidents import create_engine_incident, create_monitor_id
from watchpost.clock import FrozenClock
from watchpost.delivery.policy_rules import metadata_matches

URL = "/api/v3/metadata"
PAGES = "/api/v2/status-pages"


async def test_status_page_rules_match_the_metadata_incidents_take_from_their_heartbeat(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    page = data(await api.post(PAGES, {"subdomain": "acme-meta"}), 201)["id"]
    rule = {"key": "owner", "values": [{"type": "String", "value": "payments"}]}
    statuses = {}
    for owner in ("payments", "billing"):
        made = await create_heartbeat(api, name=owner)
        body = {"owner_type": "Heartbeat", "owner_id": made.id, "key": "owner"}
        data(await api.post(URL, {**body, "values": [{"value": owner}]}), 201)
        resource = data(
            await api.post(
                f"{PAGES}/{page}/resources",
                {
                    "resource_type": "Heartbeat",
                    "resource_id": made.id,
                    "mark_as_down_for": "incident_matching_metadata",
                    "mark_as_down_metadata_rule": rule,
                },
            ),
            201,
        )
        assert (await client.get(made.url)).status_code == 200
        assert (await client.get(f"{made.url}/fail")).status_code == 200  # opens an incident
        clock.advance(timedelta(seconds=1))
        shown = data(await api.get(f"{PAGES}/{page}/resources/{resource['id']}"))
        statuses[owner] = shown["attributes"]["status"]
    assert statuses == {"payments": "downtime", "billing": "operational"}


async def test_policy_metadata_branching_matches_typed_values(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", name="Ann")
    policy = data(await api.post("/api/v3/policies", {"name": "Payments"}), 201)
    monitor = await create_monitor_id(api)
    for key, value in (
        ("Assigned User", {"type": "User", "email": "ann@example.com"}),
        ("Assigned Policy", {"type": "Policy", "item_id": int(policy["id"])}),
    ):
        body = {"owner_type": "Monitor", "owner_id": str(monitor), "key": key, "values": [value]}
        data(await api.post(URL, body), 201)
    incident = await create_engine_incident(app, api, monitor_id=monitor)
    metadata = data(await api.get(f"/api/v2/incidents/{incident}"))["attributes"]["metadata"]
    assert metadata == {"Assigned User": ["ann@example.com"], "Assigned Policy": ["Payments"]}
    user_step = {
        "metadata_key": "Assigned User",
        "metadata_values": [{"type": "User", "email": "ann@example.com"}],
    }
    assert metadata_matches(user_step, metadata)
    policy_step = {
        "metadata_key": "Assigned Policy",
        "metadata_values": [{"type": "Policy", "name": "Payments"}],
    }
    assert metadata_matches(policy_step, metadata)
    other = {"metadata_key": "Assigned User", "metadata_values": [{"value": "bob@example.com"}]}
    assert not metadata_matches(other, metadata)
