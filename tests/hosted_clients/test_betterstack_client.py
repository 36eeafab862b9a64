"""The hosted API's Python client (`betterstack-uptime`) against a real Watchpost server.

Its Monitor and Heartbeat objects create, list (every page), filter, change (it PATCHes
only what changed), re-read and delete, over HTTP, on both backends; what they read back
is what they sent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from betterstack.uptime import (
    BearerAuth,
    Heartbeat,
    Monitor,
    PaginatedAPI,
)
from betterstack.uptime.exceptions import APIError

from tests.factories.processes import uvicorn_thread
from watchpost.app import create_app
from watchpost.context import AppContext
from watchpost.settings import Settings
from watchpost.teams.service import create_token


async def _token(settings: Settings) -> str:
    ctx = AppContext.build(settings)
    try:
        async with ctx.db.write_sessions() as session, session.begin():
            return await create_token(session, team_name="acme", now=ctx.clock.now())
    finally:
        await ctx.db.dispose()


def _client(base: str, token: str) -> Any:
    return PaginatedAPI(f"{base}/api/v2/", BearerAuth(token), retries=0)


def _policy(base: str, token: str) -> int:
    v3 = PaginatedAPI(f"{base}/api/v3/", BearerAuth(token), retries=0)
    return int(v3.post("policies", body={"name": "Primary", "steps": []}).json()["data"]["id"])


def drive_monitors(base: str, token: str) -> None:
    api = _client(base, token)
    policy = _policy(base, token)
    # Any: the client declares policy_id an int; the API shows it as the string the
    # Terraform provider reads (what the client stores is whatever the API sent).
    monitor: Any = Monitor.new(
        api,
        url="https://shop.example.com",
        monitor_type="keyword",
        required_keyword="Add to cart",
        pronounceable_name="Shop",
        http_method="GET",
        policy_id=policy,
        expiration_policy_id=policy,
        critical_alert=True,
        maintenance_from="01:00:00",
        maintenance_to="02:00:00",
        maintenance_timezone="Eastern Time (US & Canada)",
        request_headers=[{"name": "X-Probe", "value": "watchpost"}],
        team_name="acme",
    )
    assert monitor.url == "https://shop.example.com"
    assert monitor.http_method == "GET"
    assert monitor.policy_id == str(policy)
    assert monitor.expiration_policy_id == policy
    assert monitor.critical_alert is True
    assert monitor.maintenance_timezone == "Eastern Time (US & Canada)"
    assert monitor.team_name == "acme"
    assert not monitor.is_paused
    smtp = Monitor.new(api, url="mail.example.com", monitor_type="smtp", port="25,465,587")
    assert smtp.port == "25,465,587"
    others = [Monitor.new(api, url=f"https://site-{n}.example.com") for n in range(4)]

    # every page: per_page=2 makes three of them
    listed = list(Monitor.filter(api, per_page=2))
    assert [m.id for m in listed] == [monitor.id, smtp.id, *(m.id for m in others)]
    assert {m.id for m in Monitor.get_all_instances(api)} == {m.id for m in listed}
    [found] = Monitor.filter(api, url="https://shop.example.com", team_name="acme")
    assert found.id == monitor.id and found.required_keyword == "Add to cart"
    assert list(Monitor.filter(api, team_name="another-team")) == []

    # a change: only what changed is sent, and read back as sent
    header_id = monitor.request_headers[0]["id"]
    monitor.pronounceable_name = "Shop front"
    monitor.http_method = "post"
    monitor.request_body = "ping"
    monitor.paused = True
    monitor.request_headers = [
        {"id": header_id, "_destroy": "true"},
        {"name": "X-New", "value": "1"},
    ]
    assert set(monitor.get_modified_properties()) == {
        "pronounceable_name",
        "http_method",
        "request_body",
        "paused",
        "request_headers",
    }
    monitor.save()
    fetched: Any = Monitor(id=monitor.id, _api=api)
    fetched.fetch_data()
    assert fetched.pronounceable_name == "Shop front"
    assert fetched.http_method == "post"
    assert fetched.request_body == "ping"
    assert fetched.is_paused
    assert [(h["name"], h["value"]) for h in fetched.request_headers] == [("X-New", "1")]
    assert fetched.policy_id == str(policy)

    # something the hosted API does not know stays a 422
    fetched.colour = "red"
    try:
        fetched.save()
    except APIError as refused:
        assert refused.status_code == 422
    else:
        raise AssertionError("an unknown attribute was accepted")

    for each in (monitor, smtp, *others):
        each.delete()
    assert list(Monitor.get_all_instances(api)) == []


def drive_heartbeats(base: str, token: str) -> None:
    api = _client(base, token)
    policy = _policy(base, token)
    heartbeat: Any = Heartbeat.new(
        api,
        name="Nightly backup",
        period=86_400,
        grace=600,
        server_timezone="Europe/Berlin",
        policy_id=str(policy),
        critical_alert=True,
        maintenance_timezone="Berlin",
        team_name="acme",
    )
    assert heartbeat.policy_id == str(policy)
    assert heartbeat.server_timezone == "Europe/Berlin"
    assert heartbeat.critical_alert is True
    assert heartbeat.url.startswith(base)
    second = Heartbeat.new(api, name="Hourly sync", period=3600, grace=60)
    assert [h.id for h in Heartbeat.filter(api, team_name="acme")] == [heartbeat.id, second.id]
    assert {h.id for h in Heartbeat.get_all_instances(api)} == {heartbeat.id, second.id}

    heartbeat.policy_id = None
    heartbeat.server_timezone = "Eastern Time (US & Canada)"
    heartbeat.grace = 900
    heartbeat.save()
    fetched: Any = Heartbeat(id=heartbeat.id, _api=api)
    fetched.fetch_data()
    assert fetched.policy_id is None
    assert fetched.server_timezone == "Eastern Time (US & Canada)"
    assert fetched.grace == 900
    assert fetched.maintenance_timezone == "Berlin"

    heartbeat.delete()
    second.delete()
    assert list(Heartbeat.get_all_instances(api)) == []


async def test_the_python_client_drives_monitors_and_heartbeats(settings: Settings) -> None:
    token = await _token(settings)
    with uvicorn_thread(create_app(settings)) as base:
        await asyncio.to_thread(drive_monitors, base, token)
        await asyncio.to_thread(drive_heartbeats, base, token)
