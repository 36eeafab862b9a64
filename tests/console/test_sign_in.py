"""Signing in and out over HTTP (the browser tests drive the same pages in Chromium)."""

from __future__ import annotations

from datetime import timedelta

import httpx
from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD
from tests.factories.console import add_person, csrf, session_cookie, sign_in
from watchpost.clock import FrozenClock


async def test_signed_out_root_is_the_sign_in_page(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert "<h1>Sign in</h1>" in page.text
    assert 'for="email">Email<' in page.text and 'for="password">Password<' in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert page.headers["cache-control"] == "no-store"


async def test_sign_in_then_overview_then_sign_out(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email="ann@example.com", name="Ann Lee")
    answer = await sign_in(client, "Ann@Example.com")
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    overview = await client.get("/")
    assert "Overview of acme" in overview.text
    token = await csrf(client)
    out = await client.post("/logout", data={"csrf": token})
    assert out.status_code == 303
    assert (await client.get("/account")).headers["location"].startswith("/login")


async def test_wrong_password_and_unknown_email_get_the_same_answer(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await add_person(app, email="ann@example.com")
    wrong = await sign_in(client, "ann@example.com", "not the password")
    unknown = await sign_in(client, "nobody@example.com", "not the password")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.text.replace("ann@example.com", "X") == unknown.text.replace(
        "nobody@example.com", "X"
    )
    assert session_cookie(client) is None


async def test_attempts_are_limited_per_account(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email="ann@example.com")
    limit = app.state.ctx.settings.login_per_minute_account
    for _ in range(limit):
        assert (await sign_in(client, "ann@example.com", "wrong")).status_code == 401
    refused = await sign_in(client, "ann@example.com")  # even the right password waits
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    assert "Too many sign-in attempts" in refused.text
    assert session_cookie(client) is None


async def test_sessions_end_when_idle_and_can_be_revoked(
    app: FastAPI, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    await add_person(app, email="ann@example.com")
    await sign_in(client, "ann@example.com")
    assert (await client.get("/account")).status_code == 200
    clock.advance(timedelta(seconds=app.state.ctx.settings.session_idle_timeout + 1))
    assert (await client.get("/account")).status_code == 303
    await sign_in(client, "ann@example.com")
    token = await csrf(client)
    assert (
        await client.post("/account/sessions/revoke-all", data={"csrf": token})
    ).status_code == 303
    assert (await client.get("/account")).status_code == 303


async def test_cross_site_post_is_refused(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email="ann@example.com")
    await sign_in(client, "ann@example.com")
    token = await csrf(client)
    forged = await client.post(
        "/account/sessions/revoke-all",
        data={"csrf": token},
        headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert forged.status_code == 403
    no_token = await client.post("/account/sessions/revoke-all", data={})
    assert no_token.status_code == 403
    assert (await client.get("/account")).status_code == 200  # still signed in


async def test_password_of_test_never_in_pages(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email="ann@example.com")
    answer = await sign_in(client, "ann@example.com")
    assert TEST_PASSWORD not in answer.text
    assert TEST_PASSWORD not in (await client.get("/account")).text
