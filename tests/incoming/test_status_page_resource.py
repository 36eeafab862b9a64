"""An IncomingWebhook status page resource: its status from the webhook's incidents."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx

from tests.factories.api import Api, data
from tests.factories.objects import unique_name
from watchpost.clock import FrozenClock

PAGES = "/api/v2/status-pages"
URL = "/api/v2/incoming-webhooks"
RULES = {
    "started_rule_type": "any",
    "acknowledged_rule_type": "unused",
    "resolved_rule_type": "any",
    "started_rules": [{"rule_target": "body", "match_type": "contains", "content": "down"}],
    "resolved_rules": [{"rule_target": "body", "match_type": "contains", "content": "up"}],
}


async def _attributes(api: Api, path: str) -> dict[str, Any]:
    found: dict[str, Any] = data(await api.get(path))["attributes"]
    return found


async def test_the_resource_shows_the_webhooks_incidents(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = data(await api.post(URL, {"name": "Alerts", **RULES}), 201)
    receive = made["attributes"]["url"].removeprefix("http://testserver")
    page = data(await api.post(PAGES, {"subdomain": unique_name("page"), "history": 7}), 201)
    body = {"resource_type": "IncomingWebhook", "resource_id": made["id"]}
    resource = data(await api.post(f"{PAGES}/{page['id']}/resources", body), 201)
    path = f"{PAGES}/{page['id']}/resources/{resource['id']}"
    attributes = await _attributes(api, path)
    assert attributes["public_name"] == "Alerts"
    assert attributes["status"] == "not_monitored"  # no request yet
    assert (await client.post(receive, content=b"hello")).json()["result"] == "ignored"
    assert (await _attributes(api, path))["status"] == "operational"

    assert (await client.post(receive, content=b"service down")).json()["result"] == "started"
    clock.advance(timedelta(seconds=1))
    assert (await _attributes(api, path))["status"] == "downtime"
    assert (await client.post(receive, content=b"service up")).json()["result"] == "resolved"
    assert (await _attributes(api, path))["status"] == "operational"

    data(await api.patch(f"{URL}/{made['id']}", {"paused": True}))
    assert (await _attributes(api, path))["status"] == "not_monitored"
    # Deleting the webhook deletes the resource showing it.
    assert (await api.delete(f"{URL}/{made['id']}")).status_code == 204
    assert (await api.get(path)).status_code == 404


async def test_another_teams_webhook_cannot_be_shown(api: Api, other_api: Api) -> None:
    made = data(await api.post(URL, RULES), 201)
    page = data(await other_api.post(PAGES, {"subdomain": unique_name("page")}), 201)
    body = {"resource_type": "IncomingWebhook", "resource_id": made["id"]}
    response = await other_api.post(f"{PAGES}/{page['id']}/resources", body)
    assert response.status_code == 422, response.text
