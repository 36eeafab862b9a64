"""SMS and calls telling a person go to that person's phone numbers: added to the SMS
service's Apprise URL as its recipients (in place of any it names). End to end through a
local aiohttp server acting as an SMSEagle gateway (Apprise's smseagle://, host and port of
our choosing) with WATCHPOST_SMS_URL pointing at it; a person without a number is not
texted, and the attempt says so, unless the URL names recipients of its own."""

from __future__ import annotations

import logging
from typing import Any

import orjson
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from tests.factories.api import Api, data
from tests.factories.delivery import (
    Answer,
    Receiver,
    configure,
    create_member,
    deliverer_of,
    receiver,
)
from tests.factories.incidents import create_reported_incident
from watchpost.delivery.phone_targets import addressed
from watchpost.teams.models import User

INCIDENTS = "/api/v2/incidents"
SMS_PATH = "/jsonrpc/sms"
SENT = Answer(
    headers={"Content-Type": "application/json"}, body='{"result":{"message_id":7,"status":"ok"}}'
)


async def _numbers(app: FastAPI, email: str, *numbers: str) -> None:
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        await db.execute(
            update(User).where(User.email == email).values(phone_numbers=list(numbers))
        )


async def _texting_policy(api: Api, *emails: str) -> int:
    sms = data(
        await api.post("/api/v2/urgencies", {"name": "Text", "sms": True, "email": False}), 201
    )
    step = {
        "type": "escalation",
        "wait_before": 0,
        "urgency_id": int(sms["id"]),
        "step_members": [{"type": "user", "email": email} for email in emails],
    }
    return int(
        data(await api.post("/api/v3/policies", {"name": "Ops", "steps": [step]}), 201)["id"]
    )


def _texted(gateway: Receiver) -> list[tuple[str, str]]:
    sent = [orjson.loads(r.body) for r in gateway.at(SMS_PATH)]
    return sorted((s["params"]["to"], s["params"]["access_token"]) for s in sent)


async def _told(api: Api, incident: dict[str, Any]) -> list[tuple[str | None, str, str | None]]:
    items = (await api.get(f"{INCIDENTS}/{incident['id']}/deliveries")).json()["data"]
    return sorted(
        (i["attributes"]["recipient"], i["attributes"]["state"], i["attributes"]["error"])
        for i in items
        if i["attributes"]["channel"] == "sms"
    )


async def test_an_sms_goes_to_the_persons_numbers_through_the_gateway(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Lee")
    await create_member(app, "acme", "bob@example.com", "Bob")
    await _numbers(app, "ann@example.com", "+15550001111", "+447700900123")
    async with receiver() as gateway:
        gateway.answer(SMS_PATH, SENT, SENT)
        configure(app, sms_url=f"smseagle://t0ken@127.0.0.1:{gateway.port}?status=no")
        policy = await _texting_policy(api, "ann@example.com", "bob@example.com")
        incident = await create_reported_incident(
            api, name="Checkout", email=False, policy_id=policy
        )
        worker = deliverer_of(app)
        await worker.tick()  # the step: a delivery each
        await worker.tick()
        assert _texted(gateway) == [("+15550001111", "t0ken"), ("+447700900123", "t0ken")]
        message = orjson.loads(gateway.at(SMS_PATH)[0].body)["params"]["message"]
        assert "Checkout" in message
    assert await _told(api, incident) == [
        ("ann@example.com", "succeeded", None),
        ("bob@example.com", "failed", "not sent: Bob has no phone number"),
    ]


async def test_an_incidents_own_sms_flag_texts_the_members_with_numbers(
    app: FastAPI, api: Api
) -> None:
    """No policy: the incident's `sms` tells each member who has a number (start and
    resolution alike), not the URL's own recipient; a member without one is not told."""
    await create_member(app, "acme", "ann@example.com", "Ann Lee")
    await create_member(app, "acme", "bob@example.com", "Bob")
    await _numbers(app, "ann@example.com", "+15550001111")
    async with receiver() as gateway:
        gateway.answer(SMS_PATH, SENT, SENT)
        configure(app, sms_url=f"smseagle://t0ken@127.0.0.1:{gateway.port}/+15559990000")
        incident = await create_reported_incident(api, name="Checkout", sms=True, email=False)
        await api.post(f"{INCIDENTS}/{incident['id']}/resolve", {})
        await deliverer_of(app).tick()
        assert _texted(gateway) == [("+15550001111", "t0ken")] * 2
    assert await _told(api, incident) == [("ann@example.com", "succeeded", None)] * 2


async def test_an_incidents_own_sms_flag_with_nobody_numbered_uses_the_urls_recipients(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "bob@example.com", "Bob")
    async with receiver() as gateway:
        gateway.answer(SMS_PATH, SENT)
        configure(app, sms_url=f"smseagle://t0ken@127.0.0.1:{gateway.port}/+15559990000")
        incident = await create_reported_incident(api, sms=True, email=False)
        await deliverer_of(app).tick()
        assert _texted(gateway) == [("+15559990000", "t0ken")]
    assert await _told(api, incident) == [(None, "succeeded", None)]


async def test_the_urls_own_recipients_when_the_person_has_none(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "bob@example.com", "Bob")
    async with receiver() as gateway:
        gateway.answer(SMS_PATH, SENT)
        configure(app, sms_url=f"smseagle://t0ken@127.0.0.1:{gateway.port}/+15559990000")
        policy = await _texting_policy(api, "bob@example.com")
        incident = await create_reported_incident(api, email=False, policy_id=policy)
        worker = deliverer_of(app)
        await worker.tick()
        await worker.tick()
        assert _texted(gateway) == [("+15559990000", "t0ken")]
        assert await _told(api, incident) == [("bob@example.com", "succeeded", None)]
        # Once Bob has a number, it replaces the URL's recipient.
        await _numbers(app, "bob@example.com", "+15550002222")
        gateway.answer(SMS_PATH, SENT)
        assert (await api.post(f"{INCIDENTS}/{incident['id']}/resolve", {})).status_code == 200
        await worker.tick()
        assert _texted(gateway) == [("+15550002222", "t0ken"), ("+15559990000", "t0ken")]


def test_the_numbers_replace_the_urls_recipients_and_keep_the_rest() -> None:
    twilio = addressed(
        "twilio://AC123:secret@+15550001000/+15550009999?method=call", ("+15550002222",)
    )
    assert twilio is not None and not isinstance(twilio, str)
    made = twilio.url()
    assert made.startswith("twilio://AC123:secret@%2B15550001000/%2B15550002222/?")
    assert "method=call" in made and "9999" not in made
    signal = addressed(
        "signal://127.0.0.1:8080/+15550001000?batch=yes", ("+15550003333", "+15550004444")
    )
    assert signal is not None and not isinstance(signal, str)
    made = signal.url()
    assert made.startswith("signal://127.0.0.1:8080/+15550001000/+15550003333/+15550004444?")
    assert "batch=yes" in made
    eagle = addressed("smseagle://tok@gw.example/?to=+15550009999", ("+15550005555",))
    assert eagle is not None and not isinstance(eagle, str)
    assert eagle.target_phones == ["+15550005555"]
    # No number: the URL's own recipients, or nobody.
    named = "smseagle://tok@gw.example/+15550009999"
    assert addressed(named, ()) == named
    assert addressed("smseagle://tok@gw.example", ()) is None
    # A service that takes no recipients is sent to as it is.
    assert addressed("json://127.0.0.1:9/sms", ("+15550002222",)) == "json://127.0.0.1:9/sms"


def test_a_url_its_plugin_refuses_is_sent_as_it_is_and_its_secret_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Sending it then fails as any URL Apprise refuses does (chat.notify)."""
    refused = "twilio://AC123:s3cr3t-token@+15550001000?method=nonsense"
    with caplog.at_level(logging.DEBUG):
        assert addressed(refused, ("+15550002222",)) == refused
    assert "s3cr3t-token" not in caplog.text
