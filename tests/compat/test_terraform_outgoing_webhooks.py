"""betteruptime_outgoing_webhook: the requests the uptime Terraform provider sends for the
configurations of its examples and acceptance tests, replayed, and what it reads back.

The provider (resource_outgoing_webhook.go) sends `name` only when configured; `url`,
`trigger_type`; for incident_change webhooks the five on_incident_* flags (default false) and
`notify_alongside_primary_responder` (default true), always; with a template block,
`http_method` (default post), `auth_username` and `auth_password` ("" when unset),
`body_template` ("" when unset) and `headers_template` when not empty. Its Read takes the
template from `attributes.custom_webhook_template_attributes`. An update sends the changed
fields and, when the block changed, the whole block.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.compat.terraform import assert_reads_back
from tests.factories.api import Api, data, errors
from watchpost.context import AppContext
from watchpost.webhooks.models import CustomWebhookTemplate

BASE = "/api/v2/outgoing-webhooks"
TEMPLATE = "custom_webhook_template_attributes"
FLAGS = (
    "on_incident_started",
    "on_incident_acknowledged",
    "on_incident_resolved",
    "on_incident_reopened",
    "on_incident_comment",
)
# Write-only here: the provider's state keeps what it was configured with (docs/api.md).
WRITE_ONLY = (f"{TEMPLATE}.auth_password",)


def provider_body(config: dict[str, Any]) -> dict[str, Any]:
    """The JSON the provider's create builds from a resource configuration."""
    body: dict[str, Any] = {
        key: config[key] for key in ("name", "url", "trigger_type", "team_name") if key in config
    }
    if config["trigger_type"] == "incident_change":
        body |= {flag: config.get(flag, False) for flag in FLAGS}
        body["notify_alongside_primary_responder"] = config.get(
            "notify_alongside_primary_responder", True
        )
    block = config.get(TEMPLATE)
    if block is not None:
        template = {
            "http_method": block.get("http_method", "post"),
            "auth_username": block.get("auth_username", ""),
            "auth_password": block.get("auth_password", ""),
            "body_template": block.get("body_template", ""),
        }
        if block.get("headers_template"):
            template["headers_template"] = block["headers_template"]
        body[TEMPLATE] = template
    return body


EXAMPLES: dict[str, dict[str, Any]] = {
    # examples/resources/betteruptime_outgoing_webhook
    "on_incident": {
        "name": "Terraform Outgoing Webhook",
        "url": "https://example.com",
        "trigger_type": "incident_change",
        "on_incident_started": True,
        "notify_alongside_primary_responder": False,
        TEMPLATE: {
            "auth_username": "user",
            "auth_password": "password",
            "headers_template": [{"name": "Content-Type", "value": "application/json"}],
            "body_template": '{"incident":{"id":"$INCIDENT_ID","started_at":"$STARTED_AT"}}',
        },
    },
    "on_call_change": {
        "name": "Terraform On-call Webhook",
        "url": "https://example.com",
        "trigger_type": "on_call_change",
        TEMPLATE: {
            "http_method": "put",
            "headers_template": [
                {"name": "Content-Type", "value": "application/json"},
                {"name": "Authorization", "value": "Bearer your-api-token"},
            ],
            "body_template": '{"event":"on_call_changed"}',
        },
    },
    "on_monitor_change": {
        "name": "Terraform Monitor Webhook",
        "url": "https://example.com",
        "trigger_type": "monitor_change",
        TEMPLATE: {
            "body_template": '{"incident":{"id":"$INCIDENT_ID","started_at":"$STARTED_AT"}}'
        },
    },
    # the acceptance tests' minimal ones, and a team_name
    "minimal_incident": {
        "url": "https://example.com/hook",
        "trigger_type": "incident_change",
        "team_name": "acme",
    },
    "head_without_body": {
        "name": "Head",
        "url": "https://example.com/ping",
        "trigger_type": "monitor_change",
        TEMPLATE: {"http_method": "head"},
    },
}


async def _read(api: Api, webhook_id: str) -> dict[str, Any]:
    attributes: dict[str, Any] = data(await api.get(f"{BASE}/{webhook_id}"))["attributes"]
    return attributes


@pytest.mark.parametrize("example", EXAMPLES)
async def test_create_read_update_read(api: Api, example: str) -> None:
    config = EXAMPLES[example]
    sent = provider_body(config)
    created = data(await api.post(BASE, sent), 201)
    without_team = {k: v for k, v in sent.items() if k != "team_name"}
    assert_reads_back(without_team, created["attributes"], write_only=WRITE_ONLY)
    read = await _read(api, created["id"])
    assert_reads_back(without_team, read, write_only=WRITE_ONLY)
    if TEMPLATE in sent:
        assert (
            read[TEMPLATE]["id"]
            == created["relationships"]["custom_webhook_template"]["data"]["id"]
        )
        assert "auth_password" not in read[TEMPLATE]

    # An update: a new name and, for incident webhooks, other flags; the template block
    # changed (sent whole) or added.
    change: dict[str, Any] = {"name": f"{config.get('name', 'hook')} (changed)"}
    if config["trigger_type"] == "incident_change":
        change |= {"on_incident_resolved": True, "notify_alongside_primary_responder": True}
    block = dict(config.get(TEMPLATE, {}))
    block["headers_template"] = [{"name": "X-Env", "value": "production"}]
    change[TEMPLATE] = provider_body({**config, TEMPLATE: block})[TEMPLATE]
    data(await api.patch(f"{BASE}/{created['id']}", change))
    assert_reads_back(
        {**without_team, **change}, await _read(api, created["id"]), write_only=WRITE_ONLY
    )


async def test_empty_credentials_and_body_are_none(api: Api, app: FastAPI) -> None:
    """The provider's "" for an unset auth_username, auth_password and body_template: no
    basic auth, the default body."""
    created = data(await api.post(BASE, provider_body(EXAMPLES["head_without_body"])), 201)
    assert created["attributes"][TEMPLATE]["auth_username"] is None
    ctx: AppContext = app.state.ctx
    async with ctx.db.read_sessions() as session:
        row = await session.scalar(select(CustomWebhookTemplate))
    assert row is not None
    assert (row.auth_username, row.auth_password_encrypted, row.body_template) == (None, None, None)


async def test_notify_alongside_primary_responder_is_for_incident_webhooks_only(api: Api) -> None:
    body = {"url": "https://example.com", "trigger_type": "monitor_change"}
    response = await api.post(BASE, {**body, "notify_alongside_primary_responder": True})
    assert errors(response)[1] == ["notify_alongside_primary_responder"]
    created = data(await api.post(BASE, {**body, "trigger_type": "incident_change"}), 201)
    assert created["attributes"]["notify_alongside_primary_responder"] is True
    response = await api.patch(
        f"{BASE}/{created['id']}", {"notify_alongside_primary_responder": None}
    )
    assert errors(response)[1] == ["notify_alongside_primary_responder"]


async def test_an_unknown_attribute_is_still_refused(api: Api) -> None:
    body = provider_body(EXAMPLES["minimal_incident"]) | {"on_incident_exploded": True}
    assert errors(await api.post(BASE, body))[1] == ["on_incident_exploded"]
