"""Notification channels: Apprise URLs stored encrypted and never shown; every channel of the
team hears of incident starts and resolutions (sent for real, to a local receiver)."""

from __future__ import annotations

import logging

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data, errors
from tests.factories.delivery import Answer, deliverer_of, deliveries, receiver
from tests.factories.incidents import create_reported_incident
from watchpost.channels.models import NotificationChannel

CHANNELS = "/api/v2/notification-channels"


async def test_the_url_is_write_only_and_stored_encrypted(app: FastAPI, api: Api) -> None:
    url = "json://bot:s3cret@hooks.example.com/alerts"
    created = data(await api.post(CHANNELS, {"url": url, "name": "Ops chat"}), 201)
    assert created["type"] == "notification_channel"
    assert created["attributes"]["service"] == "json"
    assert created["attributes"]["name"] == "Ops chat"
    assert "url" not in created["attributes"]
    path = f"{CHANNELS}/{created['id']}"
    assert data(await api.get(path)) == created
    listed = (await api.get(CHANNELS)).json()
    assert "s3cret" not in str(listed) and listed["data"] == [created]
    async with app.state.ctx.db.read_sessions() as session:
        [row] = await session.scalars(select(NotificationChannel))
    assert "s3cret" not in row.url_encrypted
    assert app.state.ctx.box.decrypt(row.url_encrypted) == url
    changed = data(await api.patch(path, {"url": "ntfy://ntfy.example.com/ops"}))
    assert changed["attributes"]["service"] == "ntfy"
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404


async def test_a_url_apprise_cannot_use_or_a_denied_host_is_a_422(api: Api) -> None:
    for url in ("https://example.com/x", "nonsense", "json://169.254.169.254/latest"):
        _, fields = errors(await api.post(CHANNELS, {"url": url}))
        assert fields == ["url"], url
    _, fields = errors(await api.post(CHANNELS, {"name": "x"}))
    assert fields == ["url"]
    created = data(await api.post(CHANNELS, {"url": "json://hooks.example.com/a"}), 201)
    assert created["attributes"]["name"] == "json"  # the service, when no name is given
    _, fields = errors(await api.patch(f"{CHANNELS}/{created['id']}", {"url": None}))
    assert fields == ["url"]


async def test_a_refused_url_is_a_422_and_no_log_line_shows_its_token(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    """Apprise's plugin names the token it refuses ("An invalid Slack (first) Token (…)")."""
    caplog.set_level(logging.DEBUG)
    _, fields = errors(await api.post(CHANNELS, {"url": "slack://S3cr3t-T0ken/"}))
    assert fields == ["url"]
    assert "S3cr3t-T0ken" not in caplog.text


async def test_every_channel_hears_of_incident_starts_and_resolutions(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        await api.post(CHANNELS, {"url": f"json://127.0.0.1:{hook.port}/chat"})
        incident = await create_reported_incident(api, name="Checkout", summary="Timeouts")
        path = f"/api/v2/incidents/{incident['id']}"
        await api.post(f"{path}/acknowledge", {})
        await api.post(f"{path}/resolve", {})
        await deliverer_of(app).tick()
        messages = [request.json() for request in hook.at("/chat")]
    # sent at once, side by side: in either order
    assert sorted(m["title"] for m in messages) == [
        "Down: Checkout (reported by hand)",
        "Resolved: Checkout (reported by hand)",
    ]
    assert all("Timeouts" in m["message"] for m in messages)
    assert {delivery.channel for delivery in await deliveries(app)} == {"apprise"}


async def test_a_refusing_service_is_retried_with_the_reason(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        hook.answer("/chat", Answer(500))
        await api.post(CHANNELS, {"url": f"json://127.0.0.1:{hook.port}/chat"})
        await create_reported_incident(api)
        await deliverer_of(app).tick()
    [delivery] = await deliveries(app)
    assert delivery.state == "pending" and delivery.error is not None
    assert "500" in delivery.error


async def test_the_test_route_says_whether_the_service_took_it(api: Api) -> None:
    async with receiver() as hook:
        good = data(await api.post(CHANNELS, {"url": f"json://127.0.0.1:{hook.port}/chat"}), 201)
        sent = data(await api.post(f"{CHANNELS}/{good['id']}/test"))["attributes"]
        [request] = hook.at("/chat")
    assert sent["sent"] is True and sent["error"] is None
    assert request.json()["title"].startswith("Down: Test incident")
    dead = data(await api.post(CHANNELS, {"url": "json://127.0.0.1:9/chat"}), 201)
    failed = data(await api.post(f"{CHANNELS}/{dead['id']}/test"))["attributes"]
    assert failed["sent"] is False and failed["error"]


async def test_another_teams_channel_is_404(api: Api, other_api: Api) -> None:
    created = data(await api.post(CHANNELS, {"url": "json://hooks.example.com/a"}), 201)
    path = f"{CHANNELS}/{created['id']}"
    assert (await other_api.get(path)).status_code == 404
    assert (await other_api.post(f"{path}/test")).status_code == 404
