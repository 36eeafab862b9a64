"""An escalation step's urgency says how it tells people: e-mail (to aiosmtpd), SMS and a
phone call (Apprise json:// services, to a local receiver standing in for the gateways)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import (
    advance,
    configure,
    create_member,
    create_webhook,
    deliverer_of,
    receiver,
    smtp_server,
)
from tests.factories.incidents import create_reported_incident
from watchpost.delivery.chat import SERVICES

POLICIES = "/api/v3/policies"
INCIDENTS = "/api/v2/incidents"


async def policy_with(api: Api, *steps: dict[str, Any]) -> int:
    return int(data(await api.post(POLICIES, {"name": "Ops", "steps": list(steps)}), 201)["id"])


async def urgency(api: Api, **ways: bool) -> int:
    return int(data(await api.post("/api/v2/urgencies", {"name": "U", **ways}), 201)["id"])


def escalation(urgency_id: int | None, *members: dict[str, Any], wait: int = 0) -> dict[str, Any]:
    made: dict[str, Any] = {"type": "escalation", "wait_before": wait, "step_members": [*members]}
    if urgency_id is not None:
        made["urgency_id"] = urgency_id
    return made


async def told(api: Api, incident: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    items = (await api.get(f"{INCIDENTS}/{incident['id']}/deliveries")).json()["data"]
    return sorted(
        (i["attributes"]["channel"], i["attributes"]["state"], i["attributes"]["recipient"])
        for i in items
    )


async def test_an_urgency_with_sms_call_and_email_uses_all_three(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    await create_member(app, "acme", "bob@example.com", "Bob")
    loud = await urgency(api, sms=True, call=True, email=True, push=False)
    with smtp_server() as mailbox:
        async with receiver() as gateway:
            configure(
                app,
                smtp_url=f"smtp://127.0.0.1:{mailbox.port}",
                sms_url=f"json://127.0.0.1:{gateway.port}/sms",
                call_url=f"json://127.0.0.1:{gateway.port}/call",
            )
            policy = await policy_with(
                api,
                escalation(None, {"type": "user", "email": "ann@example.com"}),
                escalation(loud, {"type": "entire_team"}, wait=300),
            )
            incident = await create_reported_incident(
                api, name="Checkout", email=False, policy_id=policy
            )
            worker = deliverer_of(app)
            await worker.tick()  # step 1, no urgency: Ann by e-mail only
            await worker.tick()
            assert [m["To"] for m in mailbox.messages] == ["ann@example.com"]
            assert gateway.at("/sms") == [] and gateway.at("/call") == []
            advance(app, 301)
            await worker.tick()  # step 2: everyone, every way the urgency has
            await worker.tick()
            assert sorted(m["To"] for m in mailbox.messages) == [
                "ann@example.com",
                "ann@example.com",
                "bob@example.com",
            ]
            # a text and a call each (json:// takes no recipients: each goes to the URL)
            for way in ("/sms", "/call"):
                assert [r.json()["title"] for r in gateway.at(way)] == [
                    "Down: Checkout (reported by hand)"
                ] * 2
            assert await told(api, incident) == [
                ("call", "succeeded", "ann@example.com"),
                ("call", "succeeded", "bob@example.com"),
                ("email", "succeeded", "ann@example.com"),
                ("email", "succeeded", "ann@example.com"),
                ("email", "succeeded", "bob@example.com"),
                ("sms", "succeeded", "ann@example.com"),
                ("sms", "succeeded", "bob@example.com"),
            ]
            # whoever was told, every way, hears of the resolution
            assert (await api.post(f"{INCIDENTS}/{incident['id']}/resolve", {})).status_code == 200
            await worker.tick()
            await worker.tick()
            assert len(gateway.at("/sms")) == 4 and len(gateway.at("/call")) == 4
            resolved = [m["To"] for m in mailbox.messages if m["Subject"].startswith("Resolved")]
            assert sorted(resolved) == ["ann@example.com", "bob@example.com"]


async def test_an_sms_only_urgency_sends_no_e_mail(app: FastAPI, api: Api) -> None:
    """Without WATCHPOST_SMS_URL the delivery says why nothing was sent."""
    await create_member(app, "acme", "ann@example.com")
    quiet = await urgency(api, sms=True, email=False)
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        policy = await policy_with(
            api, escalation(quiet, {"type": "user", "email": "ann@example.com"})
        )
        incident = await create_reported_incident(api, email=False, policy_id=policy)
        worker = deliverer_of(app)
        await worker.tick()
        await worker.tick()
        assert mailbox.messages == []
    items = (await api.get(f"{INCIDENTS}/{incident['id']}/deliveries")).json()["data"]
    assert [(i["attributes"]["channel"], i["attributes"]["error"]) for i in items] == [
        ("sms", SERVICES["sms"][1])
    ]


async def test_the_urgency_leaves_webhooks_as_they_are(app: FastAPI, api: Api) -> None:
    calls = await urgency(api, call=True, email=False)
    async with receiver() as hook:
        configure(app, call_url=f"json://127.0.0.1:{hook.port}/call")
        webhook = await create_webhook(api, hook.url(), on_incident_started=False)
        policy = await policy_with(
            api, escalation(calls, {"type": "webhook", "id": int(webhook["id"])})
        )
        incident = await create_reported_incident(api, email=False, policy_id=policy)
        worker = deliverer_of(app)
        await worker.tick()
        await worker.tick()
        assert [r.json()["event"] for r in hook.at("/hook")] == ["started"]
        assert hook.at("/call") == []  # no person named: nobody to call
    assert await told(api, incident) == [("webhook", "succeeded", None)]


async def test_an_urgency_with_no_way_here_tells_the_people_nothing(app: FastAPI, api: Api) -> None:
    """`push` and `critical_alert` have no service: stored, not sent."""
    await create_member(app, "acme", "ann@example.com")
    silent = await urgency(api, email=False, push=True, critical_alert=True)
    async with receiver() as hook:
        webhook = await create_webhook(api, hook.url(), on_incident_started=False)
        policy = await policy_with(
            api,
            escalation(
                silent, {"type": "entire_team"}, {"type": "webhook", "id": int(webhook["id"])}
            ),
        )
        incident = await create_reported_incident(api, email=False, policy_id=policy)
        worker = deliverer_of(app)
        await worker.tick()
        await worker.tick()
    assert await told(api, incident) == [("webhook", "succeeded", None)]
