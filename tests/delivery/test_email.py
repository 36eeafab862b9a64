"""Alert e-mail over real SMTP (aiosmtpd): the team's members hear of an incident's start and
resolution when its object says `email: true`; the acknowledge link works once."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import (
    advance,
    configure,
    create_member,
    deliverer_of,
    deliveries,
    smtp_server,
)
from tests.factories.engine import engine_of, recording_server
from tests.factories.heartbeats import create_heartbeat
from tests.factories.incidents import create_reported_incident
from tests.factories.monitors import create_monitor
from watchpost.delivery import mail
from watchpost.delivery.mail import NOT_CONFIGURED

INCIDENTS = "/api/v2/incidents"


def _parts(message: Any) -> tuple[str, str]:
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    return text, html


# The test's SMTP server asks for a login over plain SMTP on loopback; aiosmtpd warns of it.
@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
async def test_members_are_emailed_when_a_monitor_goes_down_and_recovers(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com")
    await create_member(app, "acme", "bob@example.com", "Bob")
    await create_member(app, "globex", "eve@example.com", "Eve")
    with smtp_server(login=("alerts", "s3cret pass")) as mailbox:
        configure(
            app,
            smtp_url=f"smtp://alerts:s3cret%20pass@127.0.0.1:{mailbox.port}",
            mail_from="Watchpost <alerts@example.com>",
        )
        async with recording_server() as site:
            site.status["/shop"] = 500
            monitor = await create_monitor(
                api, url=site.url("/shop"), pronounceable_name="Shop", confirmation_period=0
            )
            engine = engine_of(app)
            await engine.tick()
            await deliverer_of(app).tick()
            started = list(mailbox.messages)
            site.status["/shop"] = 200
            await api.patch(f"/api/v2/monitors/{monitor['id']}", {"recovery_period": 0})
            advance(app, 3600)
            await engine.tick()
            await deliverer_of(app).tick()
    assert sorted(m["To"] for m in started) == ["ann@example.com", "bob@example.com"]
    message = started[0]
    assert message["Subject"] == "Down: Shop (monitor)"
    assert message["From"] == "Watchpost <alerts@example.com>"
    text, html = _parts(message)
    assert "Down: Shop" in text and "500" in text
    assert f"About: monitor Shop ({site.url('/shop')})" in text
    assert "<h2>Down: Shop</h2>" in html
    assert "Acknowledge" not in text  # no public URL configured: no link
    assert mailbox.logins and set(mailbox.logins) == {("alerts", "s3cret pass")}
    resolved = mailbox.messages[len(started) :]
    assert sorted(m["Subject"] for m in resolved) == ["Resolved: Shop (monitor)"] * 2


async def test_a_monitor_is_named_by_its_url_without_its_credentials(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        async with recording_server() as site:
            site.status["/shop?token=TOPSECRET&page=2"] = 500
            url = site.url("/shop?token=TOPSECRET&page=2").replace("://", "://bob:PASSWORD@")
            await create_monitor(api, url=url, confirmation_period=0)
            await engine_of(app).tick()
            await deliverer_of(app).tick()
    [message] = mailbox.messages
    shown = site.url("/shop?token=***&page=***").replace("://", "://***@")
    # A URL too long for the first line is folded onto the next (unfolded: a leading space).
    assert message["Subject"].lstrip() == f"Down: {shown} (monitor)"
    text, _ = _parts(message)
    assert f"About: monitor {shown}" in text.splitlines()
    assert "PASSWORD" not in message.as_string() and "TOPSECRET" not in message.as_string()


async def test_a_heartbeat_is_named_by_its_name(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    await create_member(app, "acme", "ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        made = await create_heartbeat(api, name="Nightly backup", period=60, grace=0)
        assert (await client.get(made.url)).status_code == 200
        engine = engine_of(app)
        for _ in range(3):  # no more pings: overdue after a minute
            advance(app, 60)
            await engine.sweep(app.state.ctx.clock.now())
        await deliverer_of(app).tick()
    [message] = mailbox.messages
    assert message["Subject"] == "Down: Nightly backup (heartbeat)"
    text, _ = _parts(message)
    assert "About: heartbeat Nightly backup" in text.splitlines()


async def test_no_email_when_the_monitor_says_so(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        async with recording_server() as site:
            site.status["/x"] = 500
            await create_monitor(api, url=site.url("/x"), confirmation_period=0, email=False)
            await engine_of(app).tick()
            await deliverer_of(app).tick()
        assert mailbox.messages == []


async def test_html_escapes_what_checked_servers_and_people_wrote(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        await create_reported_incident(api, name="<b>x</b>", summary="<script>alert(1)</script>")
        await deliverer_of(app).tick()
    _, html = _parts(mailbox.messages[0])
    assert "<script>" not in html and "&lt;script&gt;" in html


async def test_without_smtp_the_log_says_why_nothing_was_sent(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    await create_reported_incident(api)
    await deliverer_of(app).tick()
    [delivery] = await deliveries(app)
    assert (delivery.channel, delivery.recipient) == ("email", "ann@example.com")
    assert (delivery.state, delivery.error) == ("failed", NOT_CONFIGURED)


async def test_the_acknowledge_link_acknowledges_once_and_only_by_post(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    await create_member(app, "acme", "ann@example.com")
    with smtp_server() as mailbox:
        configure(
            app,
            smtp_url=f"smtp://127.0.0.1:{mailbox.port}",
            public_url="https://status.example.com",
        )
        incident = await create_reported_incident(api)
        await deliverer_of(app).tick()
    text, html = _parts(mailbox.messages[0])
    link = re.search(r"Acknowledge: (\S+)", text)
    assert link is not None and link.group(1) in html
    path = link.group(1).removeprefix("https://status.example.com")
    assert path.startswith("/acknowledge/")
    page = await client.get(path)
    assert page.status_code == 200 and '<form method="post">' in page.text
    shown = (await api.get(f"{INCIDENTS}/{incident['id']}")).json()["data"]["attributes"]
    assert shown["status"] == "started"  # a GET (a mail scanner's) acknowledges nothing
    done = await client.post(path)
    assert done.status_code == 200 and "Acknowledged by ann@example.com" in done.text
    shown = (await api.get(f"{INCIDENTS}/{incident['id']}")).json()["data"]["attributes"]
    assert (shown["status"], shown["acknowledged_by"]) == ("acknowledged", "ann@example.com")
    again = await client.post(path)
    assert again.status_code == 409 and "Already acknowledged" in again.text
    forged = await client.post(path[:-6] + "AAAAAA")
    assert forged.status_code == 404
    assert (await client.get("/acknowledge/not-a-token")).status_code == 404


async def test_a_name_with_line_breaks_is_one_subject_line_and_adds_no_header(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        await create_reported_incident(api, name="a\r\nBcc: x@y")
        await deliverer_of(app).tick()
    [message] = mailbox.messages
    assert message["Subject"] == "Down: a Bcc: x@y (reported by hand)"
    assert message["Bcc"] is None and mailbox.recipients == [["ann@example.com"]]
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts) == ("succeeded", 1)


async def test_a_send_that_crashes_is_a_failed_attempt_retried_on_the_schedule(
    app: FastAPI, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create_member(app, "acme", "ann@example.com")

    async def crash(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the sender broke")

    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}", delivery_retry_delays="0,60")
        await create_reported_incident(api)
        worker = deliverer_of(app)
        with monkeypatch.context() as patched:
            patched.setattr(mail, "send", crash)
            await worker.tick()
        [delivery] = await deliveries(app)
        assert (delivery.state, delivery.attempts) == ("pending", 1)
        assert delivery.error == "sending failed: RuntimeError: the sender broke"
        assert delivery.next_attempt_at is not None
        assert delivery.next_attempt_at > app.state.ctx.clock.now()
        assert (await worker.tick()).sent == 0  # not due yet
        advance(app, 70)
        await worker.tick()
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts, delivery.error) == ("succeeded", 2, None)
    assert len(mailbox.messages) == 1
