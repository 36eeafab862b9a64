"""SMS and phone calls go through the Apprise services of the settings; without one, the
incident's deliveries say why nothing was sent. (Apprise's json:// target, to a local
receiver, stands in for an SMS gateway such as Twilio, which cannot be reached from here.)"""

from __future__ import annotations

import logging

import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import configure, create_member, deliverer_of, receiver
from tests.factories.incidents import create_reported_incident
from watchpost.delivery.chat import SERVICES

INCIDENTS = "/api/v2/incidents"


async def test_without_services_the_incident_says_why_nothing_was_sent(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com")
    incident = await create_reported_incident(api, sms=True, call=True, email=False)
    await deliverer_of(app).tick()
    told = (await api.get(f"{INCIDENTS}/{incident['id']}/deliveries")).json()["data"]
    by_channel = {item["attributes"]["channel"]: item["attributes"] for item in told}
    assert set(by_channel) == {"sms", "call"}  # email: false, and no webhook or channel
    for way in ("sms", "call"):
        assert by_channel[way]["state"] == "failed"
        assert by_channel[way]["error"] == SERVICES[way][1]
        assert by_channel[way]["event"] == "started"


async def test_a_service_url_apprise_refuses_fails_and_no_log_line_shows_its_token(
    app: FastAPI, api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    """The token is in the URL's path, where URL masking (masking.py) does not look."""
    configure(app, sms_url="slack://S3cr3t-T0ken/")
    caplog.set_level(logging.DEBUG)
    incident = await create_reported_incident(api, sms=True, email=False)
    await deliverer_of(app).tick()
    [told] = (await api.get(f"{INCIDENTS}/{incident['id']}/deliveries")).json()["data"]
    assert told["attributes"]["state"] == "failed"
    assert told["attributes"]["error"] == "the URL is not a valid Apprise URL"
    assert "failed, attempt 1: the URL is not a valid Apprise URL" in caplog.text
    assert "S3cr3t-T0ken" not in caplog.text


async def test_the_sms_service_gets_the_start_and_the_resolution(app: FastAPI, api: Api) -> None:
    async with receiver() as gateway:
        configure(app, sms_url=f"json://127.0.0.1:{gateway.port}/sms")
        incident = await create_reported_incident(
            api, name="Checkout", summary="Timeouts", sms=True, email=False
        )
        await api.post(f"{INCIDENTS}/{incident['id']}/resolve", {})
        await deliverer_of(app).tick()
        titles = sorted(request.json()["title"] for request in gateway.at("/sms"))
    assert titles == ["Down: Checkout (reported by hand)", "Resolved: Checkout (reported by hand)"]
    told = (await api.get(f"{INCIDENTS}/{incident['id']}/deliveries")).json()["data"]
    assert [(t["attributes"]["channel"], t["attributes"]["state"]) for t in told] == [
        ("sms", "succeeded"),
        ("sms", "succeeded"),
    ]


async def test_the_incident_log_lists_every_way_it_was_told(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    async with receiver() as hook:
        await api.post(
            "/api/v2/outgoing-webhooks",
            {"url": hook.url(), "trigger_type": "incident_change", "on_incident_started": True},
        )
        await api.post("/api/v2/notification-channels", {"url": f"json://127.0.0.1:{hook.port}/c"})
        incident = await create_reported_incident(api)
        await deliverer_of(app).tick()
    told = (await api.get(f"{INCIDENTS}/{incident['id']}/deliveries")).json()["data"]
    channels = sorted(item["attributes"]["channel"] for item in told)
    assert channels == ["apprise", "email", "webhook"]
    email = next(t["attributes"] for t in told if t["attributes"]["channel"] == "email")
    assert email["recipient"] == "ann@example.com" and email["state"] == "failed"  # no SMTP
