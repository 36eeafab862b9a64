"""E-mail subscriptions end to end: a real SMTP server (aiosmtpd), the public form, the
delivery worker on the frozen clock."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import advance, configure
from tests.subscriptions.helpers import (
    PAGES,
    body_text,
    hit,
    html_text,
    link,
    mail_setup,
    new_page,
    new_resource,
    report,
    sign_up,
    subscribe_confirmed,
    tick,
)

ANN = "ann@example.com"


async def test_subscribe_confirm_then_a_new_report_is_mailed(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        rid = await new_resource(api, page, "API")
        answer = await sign_up(client, email=ANN)
        assert answer.status_code == 200 and "Check your inbox" in answer.text
        assert answer.headers["cache-control"] == "no-store"
        await tick(app)
        [confirmation] = box.to(ANN)
        assert "Confirm your subscription" in str(confirmation["Subject"])
        path = link(body_text(confirmation), "confirm")
        assert path in html_text(confirmation)

        # A link scanner's GET confirms nothing: it shows a button.
        shown = await client.get(path)
        assert shown.status_code == 200 and '<form method="post">' in shown.text
        [row] = data_list(await api.get(f"{PAGES}/{page}/subscribers"))
        assert row["attributes"]["confirmed"] is False
        assert (await client.post(path)).status_code == 200
        [row] = data_list(await api.get(f"{PAGES}/{page}/subscribers"))
        assert row["attributes"]["confirmed"] is True and row["attributes"]["email"] == ANN
        # The link is used up.
        assert (await client.post(path)).status_code == 404

        await report(
            api,
            page,
            title="Database <outage>",
            message="We are on it & looking",
            affected_resources=[hit(rid, "downtime")],
        )
        assert await tick(app) == 1
        mail = box.to(ANN)[-1]
        assert mail["Subject"] == "[Acme] New incident: Database <outage>"
        text = body_text(mail)
        assert "We are on it & looking" in text and "- API: downtime" in text
        html = html_text(mail)
        assert "Database &lt;outage&gt;" in html and "<outage>" not in html
        assert "on it &amp; looking" in html
        unsubscribe = link(text, "unsubscribe")
        assert mail["List-Unsubscribe"] == f"<http://status.example.test{unsubscribe}>"
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert "http://status.example.test/status/acme" in text


def data_list(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["data"]
    return found


async def test_one_click_unsubscribe_stops_the_mails(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        await subscribe_confirmed(app, client, box, ANN)
        await report(api, page, title="First")
        await tick(app)
        mail = box.to(ANN)[-1]
        target = (
            str(mail["List-Unsubscribe"]).strip("<>").removeprefix("http://status.example.test")
        )
        # GET shows a button and unsubscribes nobody.
        assert "Unsubscribe" in (await client.get(target)).text
        assert len(data_list(await api.get(f"{PAGES}/{page}/subscribers"))) == 1
        # What a mail provider sends (RFC 8058).
        one_click = await client.post(
            target,
            content=b"List-Unsubscribe=One-Click",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert one_click.status_code == 200 and "Unsubscribed" in one_click.text
        assert data_list(await api.get(f"{PAGES}/{page}/subscribers")) == []
        assert (await client.post(target)).status_code == 200  # again: still unsubscribed
        before = len(box.messages)
        await report(api, page, title="Second")
        await tick(app)
        assert len(box.messages) == before


async def test_unconfirmed_and_unsubscribed_get_nothing(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        assert (await sign_up(client, email="bob@example.com")).status_code == 200
        await tick(app)
        assert len(box.to("bob@example.com")) == 1  # the confirmation only
        await report(api, page, title="Outage")
        assert await tick(app) == 0
        assert len(box.to("bob@example.com")) == 1


async def test_the_answer_never_tells_whether_an_address_is_subscribed(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        await new_page(api)
        fresh = await sign_up(client, email="new@example.com")
        await subscribe_confirmed(app, client, box, ANN)
        again = await sign_up(client, email=ANN)
        assert (fresh.status_code, fresh.text) == (again.status_code, again.text)
        # At most one confirmation per address every ten minutes...
        await sign_up(client, email="new@example.com")
        await tick(app)
        assert len(box.to("new@example.com")) == 1
        # ... then another, and the older link stops working.
        first = link(body_text(box.to("new@example.com")[0]), "confirm")
        advance(app, 601)
        await sign_up(client, email="NEW@example.com")  # the same address, as first given
        await tick(app)
        assert len(box.to("new@example.com")) == 2 and box.to("NEW@example.com") == []
        assert (await client.post(first)).status_code == 404
        second = link(body_text(box.to("new@example.com")[1]), "confirm")
        assert (await client.post(second)).status_code == 200


async def test_per_resource_subscribers_hear_only_of_their_resources(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        api_rid = await new_resource(api, page, "API")
        web_rid = await new_resource(api, page, "Website")
        await subscribe_confirmed(app, client, box, ANN, resource_ids=[api_rid])
        await subscribe_confirmed(app, client, box, "all@example.com")
        await report(api, page, title="Website slow", affected_resources=[hit(web_rid, "degraded")])
        await tick(app)
        assert [m["Subject"] for m in box.to(ANN)][1:] == []
        assert box.to("all@example.com")[-1]["Subject"] == "[Acme] New incident: Website slow"
        await report(api, page, title="API down", affected_resources=[hit(api_rid, "downtime")])
        await tick(app)
        assert box.to(ANN)[-1]["Subject"] == "[Acme] New incident: API down"
        [row] = [
            r
            for r in data_list(await api.get(f"{PAGES}/{page}/subscribers"))
            if r["attributes"]["email"] == ANN
        ]
        assert row["attributes"]["resource_ids"] == [api_rid]


async def test_updates_resolution_and_notify_subscribers(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        rid = await new_resource(api, page, "API")
        await subscribe_confirmed(app, client, box, ANN)
        made = await report(api, page, title="Outage", affected_resources=[hit(rid, "downtime")])
        await tick(app)  # one at a time: the mails of one pass go out together, in any order
        updates = f"{PAGES}/{page}/status-reports/{made['id']}/status-updates"
        quiet = {"message": "quiet", "affected_resources": [hit(rid, "downtime")]}
        assert (await api.post(updates, quiet)).status_code == 201  # notify_subscribers: false
        assert await tick(app) == 0
        loud = {**quiet, "message": "Still on it", "notify_subscribers": True}
        assert (await api.post(updates, loud)).status_code == 201
        await tick(app)
        done = {
            "message": "Fixed",
            "notify_subscribers": True,
            "affected_resources": [hit(rid, "resolved")],
        }
        assert (await api.post(updates, done)).status_code == 201
        await tick(app)
        subjects = [m["Subject"] for m in box.to(ANN)[1:]]
        assert subjects == [
            "[Acme] New incident: Outage",
            "[Acme] Update: Outage",
            "[Acme] Resolved: Outage",
        ]
        assert "Fixed" in body_text(box.to(ANN)[-1])
        # A report created without notifying tells nobody.
        await report(api, page, title="Silent", notify_subscribers=False)
        assert await tick(app) == 0


async def test_maintenance_start_and_end_come_by_time(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        rid = await new_resource(api, page, "Database")
        await subscribe_confirmed(app, client, box, ANN)
        await report(
            api,
            page,
            title="Upgrade",
            report_type="maintenance",
            starts_at="2026-01-01T01:00:00Z",
            ends_at="2026-01-01T02:00:00Z",
            affected_resources=[hit(rid, "maintenance")],
        )
        await tick(app)
        assert box.to(ANN)[-1]["Subject"] == "[Acme] Maintenance scheduled: Upgrade"
        advance(app, 1800)
        assert await tick(app) == 0
        advance(app, 1800)
        assert await tick(app) == 1
        assert box.to(ANN)[-1]["Subject"] == "[Acme] Maintenance started: Upgrade"
        advance(app, 3600)
        assert await tick(app) == 1
        last = box.to(ANN)[-1]
        assert last["Subject"] == "[Acme] Maintenance completed: Upgrade"
        assert "Completed" in body_text(last)
        advance(app, 3600)
        assert await tick(app) == 0


async def test_a_moved_maintenance_is_announced_at_its_new_start(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        await subscribe_confirmed(app, client, box, ANN)
        made = await report(
            api,
            page,
            title="Upgrade",
            report_type="maintenance",
            starts_at="2026-01-01T01:00:00Z",
            ends_at="2026-01-01T02:00:00Z",
        )
        moved = {"starts_at": "2026-01-01T03:00:00Z", "ends_at": "2026-01-01T04:00:00Z"}
        assert (
            await api.patch(f"{PAGES}/{page}/status-reports/{made['id']}", moved)
        ).status_code == 200
        await tick(app)
        advance(app, 3600)
        assert await tick(app) == 0
        advance(app, 7200)
        assert await tick(app) == 1
        assert box.to(ANN)[-1]["Subject"] == "[Acme] Maintenance started: Upgrade"


async def test_the_address_is_never_logged(
    app: FastAPI, api: Api, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret_address = "hidden.person@example.com"
    with mail_setup(app) as box:
        page = await new_page(api)
        await subscribe_confirmed(app, client, box, secret_address)
        await report(api, page, title="Outage")
        await tick(app)
    # The SMTP server is gone: the failed attempt is logged, without the address.
    configure(app, smtp_url="smtp://127.0.0.1:9")
    await report(api, page, title="Second")
    await tick(app)
    # Watchpost's own records (the test's SMTP server logs what it receives, at DEBUG).
    ours = [r for r in caplog.records if not r.name.startswith("mail.log")]
    assert any("status page subscriber" in r.getMessage() for r in ours)
    assert all(secret_address not in r.getMessage() for r in ours)


async def test_a_title_with_line_breaks_is_one_subject_line_and_adds_no_header(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        rid = await new_resource(api, page, "API")
        await subscribe_confirmed(app, client, box, ANN)
        title = "Outage\r\nBcc: eve@example.com"
        await report(api, page, title=title, affected_resources=[hit(rid, "downtime")])
        assert await tick(app) == 1
        mail = box.to(ANN)[-1]
        assert mail["Subject"] == "[Acme] New incident: Outage Bcc: eve@example.com"
        assert mail["Bcc"] is None and box.recipients[-1] == [ANN]
