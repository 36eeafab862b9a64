"""Webhook subscribers: a real aiohttp receiver, Standard Webhooks signatures verified as a
receiver verifies them, confirmation by POST, 410 Gone."""

from __future__ import annotations

import re
from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import Answer, Receiver, receiver
from tests.subscriptions.helpers import (
    PAGES,
    PUBLIC,
    hit,
    mail_setup,
    new_page,
    new_resource,
    report,
    sign_up,
    tick,
)
from watchpost.webhooks import signing


def _verified(hook: Receiver, secret: str, path: str = "/hook") -> list[dict[str, object]]:
    """The bodies received at path, each checked against its signature."""
    bodies = []
    for request in hook.at(path):
        headers = {k.lower(): v for k, v in request.headers.items()}
        assert signing.verify(
            secret,
            headers["webhook-id"],
            int(headers["webhook-timestamp"]),
            request.body,
            headers["webhook-signature"],
        )
        assert not signing.verify(
            signing.new_secret(),
            headers["webhook-id"],
            int(headers["webhook-timestamp"]),
            request.body,
            headers["webhook-signature"],
        )
        bodies.append(request.json())
    return bodies


async def _subscribe(app: FastAPI, client: httpx.AsyncClient, hook: Receiver, **fields: Any) -> str:
    """Sign the hook up and confirm as its owner would; the signing secret."""
    answer = await sign_up(client, webhook_url=hook.url(), **fields)
    assert answer.status_code == 200, answer.text
    found = re.search(r"<code>(whsec_[A-Za-z0-9+/=]+)</code>", answer.text)
    assert found is not None, answer.text
    secret = found.group(1)
    await tick(app)
    [confirmation] = _verified(hook, secret)
    assert confirmation["event"] == "subscription_requested"
    confirm_url = str(confirmation["confirm_url"])
    assert confirm_url.startswith(PUBLIC + "/subscriptions/confirm/")
    response = await client.post(confirm_url.removeprefix(PUBLIC))
    assert response.status_code == 200, response.text
    return secret


async def test_a_webhook_subscriber_gets_signed_reports(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app):
        async with receiver() as hook:
            page = await new_page(api)
            rid = await new_resource(api, page, "API")
            secret = await _subscribe(app, client, hook)
            made = await report(
                api, page, title="Outage", message="Down", affected_resources=[hit(rid, "downtime")]
            )
            assert await tick(app) == 1
            body = _verified(hook, secret)[-1]
            assert body["event"] == "report_created"
            assert body["status_report"]["id"] == made["id"]  # type: ignore[index]
            attributes = body["status_report"]["attributes"]  # type: ignore[index]
            assert attributes["affected_resources"] == [
                {"status_page_resource_id": rid, "name": "API", "status": "downtime"}
            ]
            assert body["status_update"]["attributes"]["message"] == "Down"  # type: ignore[index]
            assert body["status_page"] == {
                "id": page,
                "company_name": "Acme",
                "subdomain": "acme",
                "url": PUBLIC + "/status/acme",
            }
            unsubscribe = str(body["unsubscribe_url"]).removeprefix(PUBLIC)
            assert (await client.post(unsubscribe)).status_code == 200
            await report(api, page, title="Second")
            assert await tick(app) == 0


async def test_an_unconfirmed_webhook_is_told_nothing_and_a_stranger_cannot_take_it_over(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app):
        async with receiver() as hook:
            page = await new_page(api)
            secret = await _subscribe(app, client, hook)
            # Someone else signs the same URL up again: a new key is shown to them, but the
            # subscriber keeps its own until the URL's owner confirms the new sign-up.
            await sign_up(client, webhook_url=hook.url())
            await report(api, page, title="Outage")
            await tick(app)
            assert [b["event"] for b in _verified(hook, secret)] == [
                "subscription_requested",
                "report_created",
            ]
            rows = (await api.get(f"{PAGES}/{page}/subscribers")).json()["data"]
            assert [r["attributes"]["webhook_url"] for r in rows] == [hook.url()]


async def test_410_gone_unsubscribes_the_webhook(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app):
        async with receiver() as hook:
            page = await new_page(api)
            await _subscribe(app, client, hook)
            hook.answer("/hook", Answer(410))
            await report(api, page, title="Outage")
            await tick(app)
            assert (await api.get(f"{PAGES}/{page}/subscribers")).json()["data"] == []
            await report(api, page, title="Again")
            assert await tick(app) == 0


async def test_a_failing_webhook_is_retried_by_the_delivery_system(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    from tests.factories.delivery import advance, configure, deliveries

    with mail_setup(app):
        configure(app, delivery_retry_delays="0,60")
        async with receiver() as hook:
            page = await new_page(api)
            secret = await _subscribe(app, client, hook)
            hook.answer("/hook", Answer(500))
            await report(api, page, title="Outage")
            await tick(app)
            advance(app, 70)
            assert await tick(app) == 1
            bodies = _verified(hook, secret)
            assert [b["event"] for b in bodies] == [
                "subscription_requested",
                "report_created",
                "report_created",
            ]
            last = (await deliveries(app))[-1]
            assert (last.channel, last.state, last.attempts) == ("subscriber", "succeeded", 2)


async def test_a_webhook_failing_for_days_is_unsubscribed_and_a_success_ends_the_streak(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    from tests.factories.delivery import advance, configure, deliveries

    day = 86400
    with mail_setup(app):
        configure(app, delivery_retry_delays="0,60", delivery_disable_after=3 * day)
        async with receiver() as hook:
            page = await new_page(api)
            await _subscribe(app, client, hook)
            subscribers = f"{PAGES}/{page}/subscribers"
            # failing for two days (each delivery's two attempts), then a success: the streak
            # ends
            hook.answer("/hook", *[Answer(500)] * 3)
            await report(api, page, title="One")
            await tick(app)
            advance(app, 2 * day)
            await report(api, page, title="Two")
            await tick(app)
            advance(app, 70)  # the second report's retry: 200
            await tick(app)
            assert len((await api.get(subscribers)).json()["data"]) == 1
            # failing again: still subscribed after two days, not after three
            hook.answer("/hook", *[Answer(503)] * 10)
            advance(app, day)
            await report(api, page, title="Three")
            await tick(app)
            advance(app, 2 * day)
            await report(api, page, title="Four")
            await tick(app)
            assert len((await api.get(subscribers)).json()["data"]) == 1
            advance(app, day)
            await report(api, page, title="Five")
            await tick(app)
            assert (await api.get(subscribers)).json()["data"] == []
            assert not [d for d in await deliveries(app) if d.channel == "subscriber"]
            await report(api, page, title="Six")
            assert await tick(app) == 0
