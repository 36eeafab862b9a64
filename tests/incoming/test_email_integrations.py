"""E-mail integrations (the hosted API's /api/v2/email-integrations): stored and read back
as its Terraform provider sends them; Watchpost receives no e-mail."""

from __future__ import annotations

from typing import Any

from tests.factories.api import Api, data, errors
from tests.incoming.test_incoming_webhooks import _expected, _subset

URL = "/api/v2/email-integrations"
PAGES = "/api/v2/status-pages"

# The provider's example, as its JSON encoding sends it.
SIMPLE: dict[str, Any] = {
    "name": "Terraform Minimal Email Integration",
    "call": False,
    "sms": False,
    "email": True,
    "push": True,
    "critical_alert": False,
    "team_wait": 300,
    "started_rule_type": "any",
    "acknowledged_rule_type": "unused",
    "resolved_rule_type": "unused",
    "started_rules": [{"rule_target": "subject", "match_type": "matches_regex", "content": ".*"}],
    "title_field": {
        "name": "Title",
        "special_type": "title",
        "field_target": "subject",
        "match_type": "match_everything",
    },
    "cause_field": {
        "name": "Cause",
        "special_type": "cause",
        "field_target": "body",
        "match_type": "match_everything",
    },
}


async def test_the_terraform_providers_requests_read_back_as_sent(api: Api) -> None:
    created = data(await api.post(URL, SIMPLE), 201)
    assert created["type"] == "email_integration"
    attributes = created["attributes"]
    assert _subset(attributes, _expected(SIMPLE)) == _expected(SIMPLE)
    assert attributes["email_address"] is None and attributes["team_name"] == "acme"
    assert "url" not in attributes
    path = f"{URL}/{created['id']}"
    assert data(await api.get(path)) == created
    change = {
        "name": "Renamed",
        "recovery_period": 180,
        "paused": True,
        "title_field": None,
        "resolved_rule_type": "all",
        "resolved_rules": [
            {"rule_target": "from_email", "match_type": "equals", "content": "ops@example.com"}
        ],
    }
    changed = data(await api.patch(path, change))["attributes"]
    expected = _expected({**SIMPLE, **change})
    assert _subset(changed, expected) == expected
    assert data(await api.get(path))["attributes"] == changed
    # An e-mail integration's targets are the e-mail's; a webhook's are refused.
    json_rule = {"rule_target": "json", "target_field": "a", "match_type": "equals"}
    errors(await api.patch(path, {"started_rules": [json_rule]}))
    errors(await api.post(URL, {**SIMPLE, "email_address": "x@example.com"}))
    # The status page resource type shows it, and goes with it.
    page = data(await api.post(PAGES, {"subdomain": "mail-page"}), 201)
    body = {"resource_type": "EmailIntegration", "resource_id": created["id"]}
    resource = data(await api.post(f"{PAGES}/{page['id']}/resources", body), 201)
    assert resource["attributes"]["public_name"] == "Renamed"
    assert resource["attributes"]["status"] == "not_monitored"
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404
    resources = f"{PAGES}/{page['id']}/resources/{resource['id']}"
    assert (await api.get(resources)).status_code == 404


async def test_an_incoming_webhook_refuses_e_mail_targets(api: Api) -> None:
    body = {**SIMPLE, "title_field": None, "cause_field": None}
    _, fields = errors(await api.post("/api/v2/incoming-webhooks", body))
    assert fields == ["started_rules"]
