"""The Statuspage-format JSON of a public page: /status/{subdomain}/api/v2/*.json."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import advance
from tests.public_machine.helpers import (
    add_update,
    hit,
    new_page,
    new_report,
    new_resource,
    new_section,
    public_json,
)

BASE = "/status/acme/api/v2"
T0 = "2026-01-01T00:00:00.000Z"


async def _page(api: Api) -> tuple[str, str, str, str, str]:
    """A page with an unnamed section (Website) and a named one (Core: API, Database)."""
    page = await new_page(api, timezone="Berlin")
    website = await new_resource(api, page, "Website")
    core = await new_section(api, page, "Core")
    return (
        page,
        website,
        core,
        await new_resource(api, page, "API", core),
        await new_resource(api, page, "Database", core),
    )


def _statuses(components: list[dict[str, Any]]) -> dict[str, str]:
    return {c["name"]: c["status"] for c in components}


async def test_summary_of_a_quiet_page(api: Api, client: httpx.AsyncClient) -> None:
    page, website, core, api_id, db_id = await _page(api)
    body = await public_json(client, f"{BASE}/summary.json")
    assert body["page"] == {
        "id": page,
        "name": "Acme Inc",
        "url": "http://testserver/status/acme",
        "time_zone": "Europe/Berlin",
        "updated_at": T0,
    }
    assert body["status"] == {"indicator": "none", "description": "All Systems Operational"}
    assert body["incidents"] == [] and body["scheduled_maintenances"] == []
    website_c, group, api_c, db_c = body["components"]
    assert website_c == {
        "id": website,
        "name": "Website",
        "status": "operational",
        "created_at": T0,
        "updated_at": T0,
        "position": 1,
        "description": None,
        "showcase": True,
        "start_date": None,
        "group_id": None,
        "page_id": page,
        "group": False,
        "only_show_if_degraded": False,
    }
    assert group["group"] is True and group["id"] == f"section-{core}"
    assert group["name"] == "Core" and group["components"] == [api_id, db_id]
    assert group["status"] == "operational" and group["position"] == 2
    assert (api_c["group_id"], db_c["group_id"]) == (group["id"], group["id"])
    assert [c["position"] for c in body["components"]] == [1, 2, 3, 4]
    assert (await public_json(client, f"{BASE}/components.json")) == {
        "page": body["page"],
        "components": body["components"],
    }
    assert (await public_json(client, f"{BASE}/status.json")) == {
        "page": body["page"],
        "status": body["status"],
    }


async def test_incident_life(api: Api, client: httpx.AsyncClient, app: FastAPI) -> None:
    page, _, _, api_id, _ = await _page(api)
    report = await new_report(
        api,
        page,
        title="API errors",
        message="We are looking into it",
        affected_resources=[hit(api_id, "downtime")],
    )
    body = await public_json(client, f"{BASE}/summary.json")
    assert body["status"] == {"indicator": "major", "description": "Partial System Outage"}
    assert _statuses(body["components"]) == {
        "Website": "operational",
        "Core": "partial_outage",
        "API": "major_outage",
        "Database": "operational",
    }
    (incident,) = body["incidents"]
    assert incident["id"] == report["id"] and incident["name"] == "API errors"
    assert incident["status"] == "investigating" and incident["impact"] == "major"
    assert incident["resolved_at"] is None and incident["started_at"] == T0
    assert incident["shortlink"] == f"http://testserver/status/acme/reports/{report['id']}"
    assert [c["name"] for c in incident["components"]] == ["API"]
    (first,) = incident["incident_updates"]
    assert first["body"] == "We are looking into it" and first["status"] == "investigating"
    assert first["display_at"] == T0 and first["incident_id"] == report["id"]
    assert first["affected_components"] == [
        {"code": api_id, "name": "API", "old_status": "operational", "new_status": "major_outage"}
    ]

    advance(app, 600)
    await add_update(
        api,
        page,
        report["id"],
        message="Fixed",
        affected_resources=[hit(api_id, "resolved")],
    )
    body = await public_json(client, f"{BASE}/summary.json")
    assert body["incidents"] == [] and body["status"]["indicator"] == "none"
    assert (await public_json(client, f"{BASE}/incidents/unresolved.json"))["incidents"] == []
    (incident,) = (await public_json(client, f"{BASE}/incidents.json"))["incidents"]
    assert incident["status"] == "resolved" and incident["impact"] == "major"
    assert incident["resolved_at"] == "2026-01-01T00:10:00.000Z"
    newest, oldest = incident["incident_updates"]
    assert (newest["status"], newest["body"]) == ("resolved", "Fixed")
    assert newest["affected_components"] == [
        {"code": api_id, "name": "API", "old_status": "major_outage", "new_status": "operational"}
    ]
    assert oldest["status"] == "investigating"


async def test_every_monitored_resource_down_is_critical(
    api: Api, client: httpx.AsyncClient
) -> None:
    page = await new_page(api)
    one = await new_resource(api, page, "One")
    two = await new_resource(api, page, "Two")
    await new_report(api, page, affected_resources=[hit(one, "downtime"), hit(two, "downtime")])
    body = await public_json(client, f"{BASE}/status.json")
    assert body["status"] == {"indicator": "critical", "description": "Major System Outage"}
    degraded = await new_page(api, "other")
    three = await new_resource(api, degraded, "Three")
    await new_report(api, degraded, affected_resources=[hit(three, "degraded")])
    body = await public_json(client, "/status/other/api/v2/status.json")
    assert body["status"] == {"indicator": "minor", "description": "Minor Service Outage"}
    components = (await public_json(client, "/status/other/api/v2/components.json"))["components"]
    assert _statuses(components) == {"Three": "degraded_performance"}


async def test_maintenance_life(api: Api, client: httpx.AsyncClient, app: FastAPI) -> None:
    page, _, _, _, db_id = await _page(api)
    report = await new_report(
        api,
        page,
        title="Database upgrade",
        report_type="maintenance",
        message="Planned",
        starts_at="2026-01-01T01:00:00Z",
        ends_at="2026-01-01T02:00:00Z",
        affected_resources=[hit(db_id, "maintenance")],
    )
    body = await public_json(client, f"{BASE}/summary.json")
    assert body["incidents"] == [] and body["status"]["indicator"] == "none"
    (planned,) = body["scheduled_maintenances"]
    assert planned["status"] == "scheduled" and planned["impact"] == "maintenance"
    assert planned["scheduled_for"] == "2026-01-01T01:00:00.000Z"
    assert planned["scheduled_until"] == "2026-01-01T02:00:00.000Z"
    assert planned["incident_updates"][0]["status"] == "scheduled"
    upcoming = await public_json(client, f"{BASE}/scheduled-maintenances/upcoming.json")
    assert [m["id"] for m in upcoming["scheduled_maintenances"]] == [report["id"]]
    active = await public_json(client, f"{BASE}/scheduled-maintenances/active.json")
    assert active["scheduled_maintenances"] == []

    advance(app, 5400)
    body = await public_json(client, f"{BASE}/summary.json")
    assert body["status"] == {
        "indicator": "maintenance",
        "description": "Service Under Maintenance",
    }
    assert _statuses(body["components"])["Database"] == "under_maintenance"
    assert _statuses(body["components"])["Core"] == "under_maintenance"
    assert [m["status"] for m in body["scheduled_maintenances"]] == ["in_progress"]

    advance(app, 3600)
    body = await public_json(client, f"{BASE}/summary.json")
    assert body["scheduled_maintenances"] == [] and body["status"]["indicator"] == "none"
    (done,) = (await public_json(client, f"{BASE}/scheduled-maintenances.json"))[
        "scheduled_maintenances"
    ]
    assert done["status"] == "completed" and done["resolved_at"] == "2026-01-01T02:00:00.000Z"
    assert (await public_json(client, f"{BASE}/incidents.json"))["incidents"] == []


async def test_updates_published_later_are_not_shown_yet(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    page, _, _, api_id, _ = await _page(api)
    report = await new_report(api, page, title="Slow", affected_resources=[hit(api_id, "degraded")])
    await add_update(
        api,
        page,
        report["id"],
        message="Tomorrow's news",
        published_at="2026-01-02T00:00:00Z",
        affected_resources=[hit(api_id, "degraded")],
    )
    (incident,) = (await public_json(client, f"{BASE}/incidents.json"))["incidents"]
    assert [u["body"] for u in incident["incident_updates"]] == [""]
    advance(app, 86400)
    (incident,) = (await public_json(client, f"{BASE}/incidents.json"))["incidents"]
    assert [u["body"] for u in incident["incident_updates"]] == ["Tomorrow's news", ""]


async def test_old_open_incident_is_still_in_the_summary(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    """Past the 50 newest reports, an open one still counts."""
    page, _, _, api_id, _ = await _page(api)
    opened = await new_report(api, page, title="Old", affected_resources=[hit(api_id, "downtime")])
    for n in range(50):
        advance(app, 60)
        await new_report(api, page, title=f"Blip {n}", affected_resources=[])
    summary = await public_json(client, f"{BASE}/summary.json")
    assert [i["id"] for i in summary["incidents"]] == [opened["id"]]
    listed = (await public_json(client, f"{BASE}/incidents.json"))["incidents"]
    assert len(listed) == 50 and listed[0]["name"] == "Blip 49"
