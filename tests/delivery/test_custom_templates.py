"""A custom webhook template decides the request: method, headers and body (sandboxed Jinja2
over the event), basic auth; the signature covers the body actually sent."""

from __future__ import annotations

import base64

from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD, Api, errors
from tests.factories.delivery import WEBHOOKS, create_webhook, deliverer_of, deliveries, receiver
from tests.factories.incidents import create_reported_incident
from watchpost.webhooks import signing

T = "custom_webhook_template_attributes"


async def test_method_headers_body_and_basic_auth_come_from_the_template(
    app: FastAPI, api: Api
) -> None:
    template = {
        "http_method": "put",
        "auth_username": "bot",
        "auth_password": TEST_PASSWORD,
        "headers_template": [
            {"name": "X-Event", "value": "{{ event }}"},
            {"name": "Content-Type", "value": "text/plain"},
        ],
        "body_template": "{{ data.attributes.name }} {{ event }}: {{ data.attributes.cause }}",
    }
    async with receiver() as hook:
        webhook = await create_webhook(api, hook.url(), **{T: template})
        await create_reported_incident(api, name="Checkout", summary="Timeouts")
        await deliverer_of(app).tick()
        [request] = hook.at("/hook")
    assert request.method == "PUT"
    assert request.body == b"Checkout started: Timeouts"
    assert request.headers["X-Event"] == "started"
    assert request.headers["Content-Type"] == "text/plain"
    expected = base64.b64encode(f"bot:{TEST_PASSWORD}".encode()).decode()
    assert request.headers["Authorization"] == f"Basic {expected}"
    assert signing.verify(
        webhook["attributes"]["signing_secret"],
        request.headers["webhook-id"],
        int(request.headers["webhook-timestamp"]),
        request.body,
        request.headers["webhook-signature"],
    )


async def test_tojson_writes_json_and_a_get_sends_no_body(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        await create_webhook(
            api,
            hook.url(),
            **{T: {"body_template": '{"text": {{ data.attributes.cause | tojson }}}'}},
        )
        await create_webhook(api, hook.url("/get"), **{T: {"http_method": "get"}})
        await create_reported_incident(api, summary='He said "<down>" & left')
        await deliverer_of(app).tick()
        [posted] = hook.at("/hook")
        [got] = hook.at("/get")
    assert posted.json() == {"text": 'He said "<down>" & left'}
    assert got.method == "GET" and got.body == b""


async def test_a_template_that_does_not_parse_is_a_422(api: Api) -> None:
    messages, fields = errors(
        await api.post(
            WEBHOOKS,
            {
                "url": "https://hooks.example.com/x",
                "trigger_type": "incident_change",
                T: {"body_template": "{{ data.attributes.name"},
            },
        )
    )
    assert fields == [f"{T}.body_template"] or fields == [T]
    assert any("is not a valid template" in message for message in messages)


async def test_a_template_that_fails_to_render_fails_its_delivery_at_once(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        await create_webhook(
            api, hook.url(), **{T: {"body_template": "{{ data.__class__.__mro__ }}"}}
        )
        await create_reported_incident(api)
        await deliverer_of(app).tick()
        assert hook.received == []
    [delivery] = await deliveries(app)
    assert delivery.state == "failed" and delivery.error is not None
    assert "unsafe" in delivery.error
