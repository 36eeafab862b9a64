"""The public sign-up route's rules (subscribable, published, bad input, rate limits, a full
page), the team's subscriber API, and durability through the outbox."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import advance, configure
from tests.subscriptions.helpers import (
    FORM,
    PAGES,
    body_text,
    mail_setup,
    new_page,
    report,
    sign_up,
    subscribe_confirmed,
    tick,
)
from watchpost.context import AppContext
from watchpost.delivery.worker import LEASE_MARGIN_S, Deliverer
from watchpost.incidents.policy_actions import PolicyActions


async def test_pages_that_take_no_subscribers_answer_404(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    await new_page(api, "closed", subscribable=False)
    await new_page(api, "hidden", published=False)
    await new_page(api, "open")
    for subdomain in ("closed", "hidden", "nowhere"):
        answer = await sign_up(client, subdomain, email="ann@example.com")
        assert answer.status_code == 404 and "text/html" in answer.headers["content-type"]
        assert (await client.get(f"/status/{subdomain}/subscribe")).status_code == 404
    form = await client.get("/status/open/subscribe")
    assert form.status_code == 200 and 'name="email"' in form.text


async def test_bad_sign_ups_are_422_and_store_nothing(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    configure(app, subscribe_rate_limit_per_minute=0, subscribe_page_rate_limit_per_minute=0)
    page = await new_page(api)
    other = await new_page(api, "other")
    foreign = data(await api.post(f"{PAGES}/{other}/resources", {"public_name": "X"}), 201)["id"]
    cases = [
        {},
        {"email": "not an address"},
        {"email": "a@example.com, b@example.com"},
        {"email": "a@example.com\r\nBcc: b@example.com"},
        {"email": "a@example.com", "webhook_url": "https://example.com/hook"},
        {"webhook_url": "ftp://example.com/hook"},
        {"webhook_url": "http://169.254.169.254/latest"},
        {"email": "a@example.com", "resource_ids": "nope"},
        {"email": "a@example.com", "resource_ids": foreign},
    ]
    for fields in cases:
        answer = await sign_up(client, **fields)
        assert answer.status_code == 422, (fields, answer.text)
        assert answer.json()["errors"], fields
    json_body = await client.post("/status/acme/subscribe", json={"email": "a@example.com"})
    assert json_body.status_code == 415
    huge = await client.post(
        "/status/acme/subscribe", content=b"email=" + b"a" * 20_000, headers=FORM
    )
    assert huge.status_code == 413
    assert (await api.get(f"{PAGES}/{page}/subscribers")).json()["data"] == []


async def test_sign_ups_are_rate_limited_per_address_and_per_page(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    configure(app, subscribe_rate_limit_per_minute=2, subscribe_page_rate_limit_per_minute=0)
    await new_page(api)
    for n in range(2):
        assert (await sign_up(client, email=f"a{n}@example.com")).status_code == 200
    refused = await sign_up(client, email="a9@example.com")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    advance(app, 60)
    assert (await sign_up(client, email="a9@example.com")).status_code == 200


async def test_sign_ups_to_one_page_are_rate_limited(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    configure(app, subscribe_rate_limit_per_minute=0, subscribe_page_rate_limit_per_minute=3)
    await new_page(api)
    await new_page(api, "other")
    for n in range(3):
        assert (await sign_up(client, email=f"a{n}@example.com")).status_code == 200
    assert (await sign_up(client, email="b@example.com")).status_code == 429
    assert (await sign_up(client, "other", email="b@example.com")).status_code == 200


async def test_a_page_holds_a_bounded_number_of_subscribers(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    configure(app, max_subscribers_per_page=2)
    await new_page(api)
    for n in range(2):
        assert (await sign_up(client, email=f"a{n}@example.com")).status_code == 200
    assert (await sign_up(client, email="full@example.com")).status_code == 409
    # Sign-ups never confirmed in a week give their place back.
    advance(app, 8 * 86400)
    assert (await sign_up(client, email="full@example.com")).status_code == 200


async def test_the_team_lists_gets_and_removes_subscribers(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    from tests.conftest import make_api

    with mail_setup(app) as box:
        page = await new_page(api)
        await subscribe_confirmed(app, client, box, "ann@example.com")
        [row] = (await api.get(f"{PAGES}/{page}/subscribers")).json()["data"]
        assert row["type"] == "status_page_subscriber"
        assert row["attributes"] == {
            "status_page_id": int(page),
            "kind": "email",
            "email": "ann@example.com",
            "webhook_url": None,
            "resource_ids": [],
            "confirmed": True,
            "confirmed_at": "2026-01-01T00:00:00.000Z",
            "created_at": "2026-01-01T00:00:00.000Z",
        }
        one = f"{PAGES}/{page}/subscribers/{row['id']}"
        assert data(await api.get(one)) == row
        stranger = await make_api(app, client, "other-team")
        assert (await stranger.get(f"{PAGES}/{page}/subscribers")).status_code == 404
        assert (await stranger.delete(one)).status_code == 404
        assert (await api.get(f"{PAGES}/{page}/subscribers/abc")).status_code == 404
        assert (await api.delete(one)).status_code == 204
        assert (await api.get(one)).status_code == 404
        await report(api, page, title="Outage")
        assert await tick(app) == 0


async def test_notice_survives_a_worker_that_dies_after_claiming(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    with mail_setup(app) as box:
        page = await new_page(api)
        await subscribe_confirmed(app, client, box, "ann@example.com")
        await report(api, page, title="Outage")
        ctx: AppContext = app.state.ctx
        dying = Deliverer(
            AppContext.build(ctx.settings, ctx.clock),
            incidents=PolicyActions(ctx.clock),
            owner="dies",
        )
        now = ctx.clock.now()
        await dying.dispatch(now)
        assert len(await dying.claim(now, 10)) == 1  # claimed, never sent: the process dies
        await dying.ctx.db.dispose()
        assert await tick(app) == 0  # leased to the dead worker
        advance(app, ctx.settings.delivery_timeout + LEASE_MARGIN_S + 1)
        assert await tick(app) == 1
        assert box.to("ann@example.com")[-1]["Subject"] == "[Acme] New incident: Outage"
        assert "Outage" in body_text(box.to("ann@example.com")[-1])


async def test_invalid_links_answer_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    for path in (
        "/subscriptions/confirm/v1.bm90LWEtdG9rZW4",
        "/subscriptions/unsubscribe/v1.bm90LWEtdG9rZW4",
        "/subscriptions/confirm/" + "x" * 600,
    ):
        assert (await client.get(path)).status_code == 404
        assert (await client.post(path)).status_code == 404


async def test_a_protected_page_needs_the_visitors_cookie(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    from tests.factories.api import TEST_PASSWORD

    with mail_setup(app) as box:
        page = await new_page(api, password_enabled=True, password=TEST_PASSWORD)
        refused = await sign_up(client, email="ann@example.com")
        assert refused.status_code == 401 and 'name="password"' in refused.text
        assert (await client.get("/status/acme/subscribe")).status_code == 401
        assert (await api.get(f"{PAGES}/{page}/subscribers")).json()["data"] == []
        login = await client.post("/status/acme/login", data={"password": TEST_PASSWORD})
        assert login.status_code == 303
        # The client keeps the cookie: now the sign-up goes through, and the mail's links
        # work without it (a mail client has none).
        await subscribe_confirmed(app, client, box, "ann@example.com")
        client.cookies.clear()
        await report(api, page, title="Outage")
        await tick(app)
        assert box.to("ann@example.com")[-1]["Subject"] == "[Acme] New incident: Outage"


async def test_the_ip_allowlist_applies_to_sign_ups(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    await new_page(api, ip_allowlist=["10.0.0.0/8"])
    assert (await sign_up(client, email="ann@example.com")).status_code == 403


async def test_a_page_on_its_own_host_takes_sign_ups_at_subscribe(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page = await new_page(api, custom_domain="status.acme.test")
    own_host = {**FORM, "Host": "status.acme.test"}
    answer = await client.post("/subscribe", data={"email": "ann@example.com"}, headers=own_host)
    assert answer.status_code == 200, answer.text
    [row] = (await api.get(f"{PAGES}/{page}/subscribers")).json()["data"]
    assert row["attributes"]["email"] == "ann@example.com"
