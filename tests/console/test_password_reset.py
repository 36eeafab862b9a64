"""Forgotten passwords: a link by e-mail through the real SMTP server alerts use (aiosmtpd);
the same page whether the address is known or not; the link sets a new password once and
ends every session."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
from fastapi import FastAPI

from tests.factories.console import add_person, sign_in
from tests.factories.delivery import configure, smtp_server
from watchpost.clock import FrozenClock


async def test_reset_by_e_mail(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email="ann@example.com", name="Ann")
    other = httpx.AsyncClient(transport=client._transport, base_url="http://testserver")
    await sign_in(other, "ann@example.com")  # a session elsewhere, ended by the reset
    assert (await other.get("/account")).status_code == 200
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        known = await client.post("/login/forgot", data={"email": "ANN@example.com"})
        unknown = await client.post("/login/forgot", data={"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 200
    assert known.text.replace("ANN@example.com", "X") == unknown.text.replace(
        "nobody@example.com", "X"
    )
    (message,) = mailbox.messages
    assert message["To"] == "ann@example.com"
    body = message.get_body(("plain",))
    assert body is not None
    link = re.search(r"http://testserver(/login/link/\S+)", body.get_content())
    assert link, body.get_content()
    page = await client.get(link.group(1))
    assert page.status_code == 200 and "Set your password" in page.text
    mismatch = await client.post(
        link.group(1), data={"password": "a brand new secret", "confirm": "something else"}
    )
    assert mismatch.status_code == 422 and "not the same" in mismatch.text
    done = await client.post(
        link.group(1), data={"password": "a brand new secret", "confirm": "a brand new secret"}
    )
    assert done.status_code == 303
    assert (await client.get("/account")).status_code == 200
    assert (await other.get("/account")).status_code == 303  # the other session ended
    again = await client.get(link.group(1))
    assert again.status_code == 410
    await other.aclose()
    fresh = httpx.AsyncClient(transport=client._transport, base_url="http://testserver")
    assert (await sign_in(fresh, "ann@example.com", "a brand new secret")).status_code == 303
    await fresh.aclose()


async def test_a_link_expires_after_a_day(
    app: FastAPI, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    await add_person(app, email="ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        await client.post("/login/forgot", data={"email": "ann@example.com"})
    body = mailbox.messages[0].get_body(("plain",))
    assert body is not None
    link = re.search(r"http://testserver(/login/link/\S+)", body.get_content())
    assert link
    clock.advance(timedelta(hours=24, seconds=1))
    assert (await client.get(link.group(1))).status_code == 410
