"""The probe agents' protocol against the app, the agent's part played by the test: claims
carry a check's input (credentials only to a location that checks it), results are applied
once (a replay, another location's token or a moved-on check is discarded), a location that
alone fails leaves the monitor up and degraded, the majority makes it down with an incident
naming where it failed, and a probe token opens nothing else."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from tests.factories.api import TEST_PASSWORD, Api, data, errors
from tests.factories.engine import engine_of, recording_server
from tests.factories.hostile_times import HOSTILE_TIMES
from tests.factories.objects import create_collector, create_target, target_body
from tests.factories.servers import REDIS, require_tcp
from watchpost.agent.wire import check_input
from watchpost.clock import FrozenClock
from watchpost.locations import tokens
from watchpost.locations.models import Location, LocationCheck
from watchpost.monitors import placement
from watchpost.monitors.models import Monitor
from watchpost.monitors.service import check_everywhere_now
from watchpost.probes.running import run_guarded, run_target_check
from watchpost.probing.protocol_endpoints import LEASE_MARGIN

MONITORS = "/api/v2/monitors"
PROBE = "/api/probe/v1"


async def add_location(app: FastAPI, name: str, region: str, **values: Any) -> str:
    """A location with a probe token, every monitor placed again; the raw token."""
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        location = Location(name=name, region=region, created_at=ctx.clock.now(), **values)
        session.add(location)
        await session.flush()
        raw = await tokens.create_token(session, location=location, name=None, now=ctx.clock.now())
        await placement.place_all(session, now=ctx.clock.now())
    return raw


class Agent:
    """The test's side of the protocol."""

    def __init__(self, client: httpx.AsyncClient, token: str, owner: str) -> None:
        self.client, self.owner = client, owner
        self.headers = {"Authorization": f"Bearer {token}"}

    async def post(self, path: str, body: dict[str, Any], status: int = 200) -> Any:
        response = await self.client.post(f"{PROBE}/{path}", json=body, headers=self.headers)
        assert response.status_code == status, response.text
        return response.json()

    async def claim(self) -> list[dict[str, Any]]:
        checks: list[dict[str, Any]] = (
            await self.post("claims", {"owner": self.owner, "limit": 100})
        )["checks"]
        return checks

    async def report(self, *results: dict[str, Any]) -> dict[str, int]:
        answer: dict[str, int] = await self.post(
            "results", {"owner": self.owner, "results": list(results)}
        )
        return answer


def failed(check: dict[str, Any], error: str = "connection refused") -> dict[str, Any]:
    return {"token": check["token"], "ok": False, "latency_ms": 3.0, "error": error, "age_ms": 0}


def passed(check: dict[str, Any]) -> dict[str, Any]:
    return {"token": check["token"], "ok": True, "latency_ms": 2.0, "age_ms": 0}


async def test_a_probe_token_is_only_for_the_protocol(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    raw = await add_location(app, "eu-west", "eu")
    assert raw.startswith("wpp_")
    response = await client.get(MONITORS, headers={"Authorization": f"Bearer {raw}"})
    assert response.status_code == 401
    refused = await client.post(
        f"{PROBE}/claims", json={"owner": "agent-0001"}, headers=api.headers
    )
    assert refused.status_code == 401
    hello = await Agent(client, raw, "agent-0001").post("hello", {"agent": "box 1.0"})
    assert hello["location"] == "eu-west" and hello["region"] == "eu"


async def test_claims_carry_credentials_only_to_the_locations_that_check(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    us = Agent(client, await add_location(app, "us-east", "us"), "agent-us-1")
    body = {
        "url": "https://example.com/private",
        "regions": ["eu"],
        "auth_username": "ann",
        "auth_password": TEST_PASSWORD,
    }
    monitor = data(await api.post(MONITORS, body), 201)
    (check,) = await eu.claim()
    assert check["input"]["auth_password"] == TEST_PASSWORD
    assert check["input"]["url"] == "https://example.com/private"
    assert await us.claim() == []
    assert await eu.claim() == []  # leased: not handed out twice
    stored = await engine_of(app).ctx.db.read_sessions().__aenter__()
    try:
        row = await stored.get(Monitor, int(monitor["id"]))
        assert row is not None and row.located and not row.checked_here
    finally:
        await stored.close()


async def test_results_apply_once_and_only_for_the_agents_location(
    app: FastAPI, client: httpx.AsyncClient, api: Api, clock: FrozenClock
) -> None:
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    us = Agent(client, await add_location(app, "us-east", "us"), "agent-us-1")
    data(await api.post(MONITORS, {"url": "https://example.com", "regions": ["eu", "us"]}), 201)
    (eu_check,) = await eu.claim()
    (us_check,) = await us.claim()
    assert await us.report(passed(eu_check)) == {"applied": 0, "discarded": 1}
    assert await eu.report(passed(eu_check)) == {"applied": 1, "discarded": 0}
    assert await eu.report(passed(eu_check)) == {"applied": 0, "discarded": 1}  # a replay
    forged = {**passed(us_check), "token": us_check["token"]}
    assert await Agent(client, eu.headers["Authorization"][7:], "agent-eu-2").report(forged) == {
        "applied": 0,
        "discarded": 1,
    }
    assert await us.report(passed(us_check)) == {"applied": 1, "discarded": 0}
    clock.advance(timedelta(minutes=4))
    assert await eu.claim() != []  # due again after its interval


@pytest.mark.parametrize("timeout", [5, 45])
async def test_a_dead_agents_checks_go_to_another_after_their_timeout_and_the_margin(
    app: FastAPI, client: httpx.AsyncClient, api: Api, clock: FrozenClock, timeout: int
) -> None:
    raw = await add_location(app, "eu-west", "eu")
    first, second = Agent(client, raw, "agent-eu-1"), Agent(client, raw, "agent-eu-2")
    body = {"url": "https://example.com", "regions": ["eu"], "request_timeout": timeout}
    data(await api.post(MONITORS, body), 201)
    (check,) = await first.claim()  # and the first agent is never heard of again
    assert check["timeout"] == timeout
    held = timedelta(seconds=timeout) + LEASE_MARGIN
    clock.advance(held - timedelta(seconds=1))
    assert await second.claim() == []
    clock.advance(timedelta(seconds=2))
    (taken,) = await second.claim()
    assert taken["token"] == check["token"]  # the same run of the check, not a later one
    assert await first.report(passed(check)) == {"applied": 0, "discarded": 1}
    assert await second.report(passed(taken)) == {"applied": 1, "discarded": 0}


async def test_the_majority_of_locations_decides(
    app: FastAPI, client: httpx.AsyncClient, api: Api, clock: FrozenClock
) -> None:
    """Three locations (the server's own, eu-west, us-east): one failing leaves the monitor
    up and degraded; two make it down, with an incident naming where it failed and where it
    did not; one passing again ends it."""
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    us = Agent(client, await add_location(app, "us-east", "us"), "agent-us-1")
    async with recording_server() as target:
        body = {
            "url": target.url("/"),
            "confirmation_period": 0,
            "recovery_period": 0,
            "regions": ["eu", "us"],
            "locations": ["local"],
        }
        monitor = data(await api.post(MONITORS, body), 201)
        path = f"{MONITORS}/{monitor['id']}"
        assert (await engine_of(app).tick()).applied == 1  # the server's own check: up
        (eu_check,) = await eu.claim()
        (us_check,) = await us.claim()
        await eu.report(failed(eu_check, "timed out"))
        shown = data(await api.get(path))["attributes"]
        assert (shown["status"], shown["degraded"]) == ("up", True)
        assert (await api.get("/api/v3/incidents")).json()["data"] == []
        await us.report(failed(us_check, "connection refused"))
        shown = data(await api.get(path))["attributes"]
        assert (shown["status"], shown["degraded"]) == ("down", False)
        (incident,) = (await api.get("/api/v3/incidents")).json()["data"]
        attributes = incident["attributes"]
        assert attributes["cause"] == (
            "Down from eu-west (timed out) and us-east (connection refused); up from local"
        )
        places = {item["location"]: item["status"] for item in attributes["locations"]}
        assert places == {"eu-west": "down", "us-east": "down", "local": "up"}
        clock.advance(timedelta(minutes=4))
        (eu_check,) = await eu.claim()
        await eu.report(passed(eu_check))
        shown = data(await api.get(path))["attributes"]
        assert (shown["status"], shown["degraded"]) == ("up", True)
        (incident,) = (await api.get("/api/v3/incidents")).json()["data"]
        assert incident["attributes"]["resolved_at"] is not None


async def test_a_finished_at_that_cannot_be_read_or_held_is_ignored(
    app: FastAPI, client: httpx.AsyncClient, api: Api, clock: FrozenClock
) -> None:
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    data(await api.post(MONITORS, {"url": "https://example.com", "regions": ["eu"]}), 201)
    for stamp in [value for value in HOSTILE_TIMES if len(value) <= 40]:
        (check,) = await eu.claim()
        sent = {**passed(check), "finished_at": stamp}
        assert await eu.report(sent) == {"applied": 1, "discarded": 0}, stamp
        clock.advance(timedelta(minutes=4))


async def test_response_times_come_per_location(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    async with recording_server() as target:
        body = {"url": target.url("/"), "regions": ["eu", "us"]}
        monitor = data(await api.post(MONITORS, body), 201)
        assert (await engine_of(app).tick()).applied == 1
        (check,) = await eu.claim()
        await eu.report(passed(check))
    answer = data(await api.get(f"{MONITORS}/{monitor['id']}/response-times"))
    regions = answer["attributes"]["regions"]
    assert [(r["location"], r["region"]) for r in regions] == [("eu-west", "eu"), ("local", "us")]
    assert regions[0]["response_times"][0]["response_time"] == 0.002


async def test_a_degraded_monitor_is_degraded_on_its_status_page(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    async with recording_server() as target:
        body = {"url": target.url("/"), "regions": ["eu", "us"]}
        monitor = data(await api.post(MONITORS, body), 201)
        page = data(await api.post("/api/v2/status-pages", {"subdomain": "acme"}), 201)
        resources = f"/api/v2/status-pages/{page['id']}/resources"
        added = {"resource_type": "Monitor", "resource_id": monitor["id"]}
        resource = data(await api.post(resources, added), 201)
        assert (await engine_of(app).tick()).applied == 1
        shown = data(await api.get(f"{resources}/{resource['id']}"))["attributes"]
        assert shown["status"] == "operational"
        (check,) = await eu.claim()
        await eu.report(failed(check))
    shown = data(await api.get(f"{resources}/{resource['id']}"))["attributes"]
    assert shown["status"] == "degraded"
    page_now = data(await api.get(f"/api/v2/status-pages/{page['id']}"))["attributes"]
    assert page_now["aggregate_state"] == "degraded"


async def test_check_now_reaches_every_location(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    monitor = data(await api.post(MONITORS, {"url": "https://example.com/"}), 201)
    (check,) = await eu.claim()
    await eu.report(passed(check))
    assert await eu.claim() == []  # next due in check_frequency
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        row = await session.get(Monitor, int(monitor["id"]))
        assert row is not None
        assert await check_everywhere_now(session, row, ctx.clock.now())
    assert len(await eu.claim()) == 1


async def test_a_collector_target_is_checked_by_its_locations_agent(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    """A target given a location_id is its agents' only (the server leaves it), checked with
    the engine's own target probe against a real Redis; moved back, the server checks it."""
    require_tcp("Redis", REDIS)
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    places = (await api.get("/api/v2/locations")).json()["data"]
    eu_id = next(p["id"] for p in places if p["attributes"]["name"] == "eu-west")
    collector = await create_collector(api)
    body = target_body("redis", host="127.0.0.1", port=REDIS[1], location_id=int(eu_id))
    target = await create_target(api, collector["id"], body)
    assert target["attributes"]["location_id"] == int(eu_id)
    assert (await engine_of(app).tick()).claimed == 0
    (check,) = await eu.claim()
    assert check["kind"] == "collector_target" and check["input"]["host"] == "127.0.0.1"
    checked = check_input(check["kind"], check["input"])
    result = await run_guarded(checked, float(check["timeout"]), run_target_check, what="t")
    assert result.ok, result
    answer = await eu.report(
        {**passed(check), "metrics": dict(result.metrics), "latency_ms": result.latency_ms}
    )
    assert answer == {"applied": 1, "discarded": 0}
    path = f"/api/v1/collectors/{collector['id']}/targets/{target['id']}"
    assert data(await api.get(path))["attributes"]["status"] == "up"
    moved = data(await api.patch(path, {"location_id": None}))["attributes"]
    assert moved["location_id"] is None
    assert (await engine_of(app).tick()).claimed == 1
    assert await eu.claim() == []


async def test_a_location_the_team_cannot_use_is_refused(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    await add_location(app, "office-berlin", "eu", private=True, team_id=other_api.team_id)
    body = {"url": "https://example.com/", "locations": ["office-berlin"]}
    _, fields = errors(await api.post(MONITORS, body))
    assert fields == ["locations"]
    collector = await create_collector(api)
    target = target_body("redis", host="127.0.0.1", port=6379, location_id=2)
    response = await api.post(f"/api/v1/collectors/{collector['id']}/targets", target)
    assert response.status_code == 422, response.text
    assert response.json()["invalid_attributes"] == ["location_id"]


async def test_changing_a_monitors_locations_moves_its_checks(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    eu = Agent(client, await add_location(app, "eu-west", "eu"), "agent-eu-1")
    body = {"url": "https://example.com/", "regions": ["us"]}
    monitor = data(await api.post(MONITORS, body), 201)
    path = f"{MONITORS}/{monitor['id']}"
    assert await eu.claim() == []  # only the server checks it
    changed = data(await api.patch(path, {"locations": ["eu-west"]}))["attributes"]
    assert changed["locations"] == ["eu-west"]
    (check,) = await eu.claim()
    data(await api.patch(path, {"locations": []}))
    assert await eu.report(passed(check)) == {"applied": 0, "discarded": 1}  # moved away
    assert await eu.claim() == []
    assert (await api.delete(path)).status_code == 204
    ctx = app.state.ctx
    async with ctx.db.read_sessions() as session:
        left = await session.scalar(select(func.count()).select_from(LocationCheck))
    assert left == 0


async def test_a_new_location_checks_the_monitors_of_its_region(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    first = data(await api.post(MONITORS, {"url": "https://example.com/a"}), 201)
    data(await api.post(MONITORS, {"url": "https://example.com/b", "regions": ["us"]}), 201)
    au = Agent(client, await add_location(app, "syd-1", "au"), "agent-au-1")
    (check,) = await au.claim()
    assert check["input"]["url"] == "https://example.com/a"
    attributes = data(await api.get(f"{MONITORS}/{first['id']}"))["attributes"]
    assert attributes["regions"] == ["us", "eu", "as", "au"]
