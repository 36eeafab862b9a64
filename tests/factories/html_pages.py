"""Every kind of HTML page the server answers, with real data behind it: what the security
header tests (tests/http/) visit, through the app or in a browser."""

from __future__ import annotations

from datetime import timedelta

from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import TEST_PASSWORD, Api, data
from tests.factories.history import obs, write
from watchpost.incidents import transitions
from watchpost.links import ACKNOWLEDGE_PATH, acknowledge_token
from watchpost.subscriptions import tokens
from watchpost.subscriptions.models import StatusPageSubscriber

PAGES = "/api/v2/status-pages"
CUSTOM_CSS = ".name{letter-spacing:.01em}\n\n\r\nh1 > a{color:#123}"
"""A page's own CSS, with blank lines and a `>`: its hash must be of what the page holds."""


async def seed_html_pages(api: Api, app: FastAPI) -> dict[str, str]:
    """The pages by name → path: `acme`, a subscribable page with a section, a monitor (with
    10 days of history and response times), a manual resource under a report; `locked`,
    password-protected; an e-mail subscriber's links; an alert e-mail's acknowledge link."""
    ctx = app.state.ctx
    now = ctx.clock.now()
    page = {"subdomain": "acme", "company_name": "Acme Inc", "subscribable": True}
    page["custom_css"] = CUSTOM_CSS
    page_id = str(data(await api.post(PAGES, page), 201)["id"])
    monitor = {"url": "https://www.example.com", "pronounceable_name": "Website"}
    monitor_id = int(data(await api.post("/api/v2/monitors", monitor), 201)["id"])
    section = {"name": "Core"}
    section_id = int(data(await api.post(f"{PAGES}/{page_id}/sections", section), 201)["id"])
    for widget in ("history", "response_times"):
        resource = {"resource_type": "Monitor", "resource_id": monitor_id, "widget_type": widget}
        data(await api.post(f"{PAGES}/{page_id}/resources", resource), 201)
    manual = {"public_name": "Public API", "status_page_section_id": section_id}
    manual_id = data(await api.post(f"{PAGES}/{page_id}/resources", manual), 201)["id"]
    report = {
        "title": "Database outage",
        "message": "Requests fail; we are on it.",
        "affected_resources": [{"status_page_resource_id": manual_id, "status": "downtime"}],
    }
    report_id = data(await api.post(f"{PAGES}/{page_id}/status-reports", report), 201)["id"]
    start = now - timedelta(days=10)
    await write(
        app,
        [
            obs(
                api.team_id,
                start + timedelta(hours=h),
                subject_id=monitor_id,
                valid_for_s=3600,
                latency_ms=80,
            )
            for h in range(10 * 24)
        ],
    )
    locked = {"subdomain": "locked", "company_name": "Locked", "password_enabled": True}
    data(await api.post(PAGES, {**locked, "password": TEST_PASSWORD}), 201)

    signed_up = await api.client.post(
        "/status/acme/subscribe",
        data={"email": "reader@example.com"},
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert signed_up.status_code == 200, signed_up.text
    async with ctx.db.write_sessions() as session, session.begin():
        subscriber = (await session.execute(select(StatusPageSubscriber))).scalar_one()
        incident = await transitions.start(
            session,
            team_id=api.team_id,
            name="Website",
            cause="Status 500",
            at=now - timedelta(minutes=5),
            monitor_id=monitor_id,
        )
        await session.flush()
        confirm = tokens.seal(ctx.box, "confirm", subscriber.id, subscriber.confirm_nonce)
        leave = tokens.seal(ctx.box, "unsubscribe", subscriber.id, subscriber.unsubscribe_nonce)
        acknowledge = acknowledge_token(ctx.box, incident.id, "oncall@example.com")
    return {
        "page": "/status/acme",
        "page_slash": "/status/acme/",
        "history": "/status/acme/history",
        "report": f"/status/acme/reports/{report_id}",
        "subscribe": "/status/acme/subscribe",
        "page_404": "/status/acme/no-such-thing",
        "unknown_page": "/status/nobody",
        "password_form": "/status/locked",
        "confirm": tokens.CONFIRM_PATH + confirm,
        "unsubscribe": tokens.UNSUBSCRIBE_PATH + leave,
        "acknowledge": ACKNOWLEDGE_PATH + acknowledge,
        "docs": "/docs",
        "redoc": "/redoc",
        "oauth2_redirect": "/docs/oauth2-redirect",
        "console": "/",  # signed out: the console's sign-in page
    }
