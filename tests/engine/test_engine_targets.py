"""The engine checks collector targets: pending → up / down, disabled and paused ones never."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.engine import change, engine_of, load
from tests.factories.objects import create_collector, create_target, target_body
from tests.factories.servers import REDIS, free_port, require_tcp
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.schemas import TargetAttributes
from watchpost.engine.schedule import next_slot

COLLECTORS = "/api/v1/collectors"


async def target_at(api: Api, port: int, **overrides: Any) -> tuple[str, str]:
    collector = await create_collector(api)
    body = target_body("redis", host="127.0.0.1", port=port, **overrides)
    target = await create_target(api, collector["id"], body)
    assert target["attributes"]["status"] in ("pending", "disabled")
    return collector["id"], target["id"]


async def read_target(api: Api, collector_id: str, target_id: str) -> dict[str, Any]:
    attributes = data(await api.get(f"{COLLECTORS}/{collector_id}/targets/{target_id}"))[
        "attributes"
    ]
    TargetAttributes.model_validate(attributes, strict=True)
    assert isinstance(attributes, dict)
    return attributes


async def test_a_reachable_target_goes_up(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    require_tcp("Redis", REDIS)
    collector_id, target_id = await target_at(api, REDIS[1])
    report = await engine_of(app).tick()
    assert (report.claimed, report.applied) == (1, 1)
    attributes = await read_target(api, collector_id, target_id)
    assert attributes["status"] == "up"
    assert attributes["last_ping_at"] == isoformat_ms(clock.now())
    assert attributes["consecutive_failure_count"] == 0
    assert attributes["last_error"] is None
    collector = data(await api.get(f"{COLLECTORS}/{collector_id}"))["attributes"]
    assert collector["status"] == "up"
    assert collector["pinged_at"] == isoformat_ms(clock.now())
    row = await load(app, CollectorTarget, target_id)
    interval = app.state.ctx.settings.target_check_interval
    assert row.next_check_at == next_slot("collector_target", row.id, interval, after=clock.now())


async def test_an_unreachable_target_goes_down_with_a_readable_error(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    collector_id, target_id = await target_at(api, free_port())
    engine = engine_of(app)
    await engine.tick()
    attributes = await read_target(api, collector_id, target_id)
    assert attributes["status"] == "down"
    assert attributes["consecutive_failure_count"] == 1
    assert isinstance(attributes["last_error"], str) and "refused" in attributes["last_error"]
    assert attributes["last_ping_at"] is None
    collector = data(await api.get(f"{COLLECTORS}/{collector_id}"))["attributes"]
    assert (collector["status"], collector["pinged_at"]) == ("down", None)

    clock.set((await load(app, CollectorTarget, target_id)).next_check_at)
    await engine.tick()
    assert (await read_target(api, collector_id, target_id))["consecutive_failure_count"] == 2


async def test_a_target_that_recovers_goes_up_and_forgets_its_error(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    require_tcp("Redis", REDIS)
    collector_id, target_id = await target_at(api, free_port())
    engine = engine_of(app)
    await engine.tick()
    path = f"{COLLECTORS}/{collector_id}/targets/{target_id}"
    patched = data(await api.patch(path, {"port": REDIS[1]}))["attributes"]
    assert patched["status"] == "pending"  # a connection change is checked anew, at once
    assert (await engine.tick()).applied == 1
    attributes = await read_target(api, collector_id, target_id)
    assert (attributes["status"], attributes["last_error"]) == ("up", None)
    assert attributes["consecutive_failure_count"] == 0


async def test_disabled_targets_are_not_checked(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    collector_id, target_id = await target_at(api, free_port(), enabled=False)
    engine = engine_of(app)
    clock.advance(3600)
    assert (await engine.tick()).claimed == 0
    assert (await read_target(api, collector_id, target_id))["status"] == "disabled"
    path = f"{COLLECTORS}/{collector_id}/targets/{target_id}"
    data(await api.patch(path, {"enabled": True}))
    assert (await engine.tick()).applied == 1
    assert (await read_target(api, collector_id, target_id))["status"] == "down"


async def test_no_checks_while_paused_until_is_in_the_future(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    collector_id, target_id = await target_at(api, free_port())
    await change(app, CollectorTarget, target_id, paused_until=clock.now() + timedelta(minutes=10))
    engine = engine_of(app)
    clock.advance(599)
    assert (await engine.tick()).claimed == 0
    clock.advance(1)
    assert (await engine.tick()).applied == 1
    assert (await read_target(api, collector_id, target_id))["status"] == "down"


async def test_the_collector_is_down_when_one_of_its_targets_is(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    require_tcp("Redis", REDIS)
    collector = await create_collector(api)
    for port in (REDIS[1], free_port()):
        body = target_body("redis", host="127.0.0.1", port=port)
        await create_target(api, collector["id"], body)
    await engine_of(app).tick()
    attributes = data(await api.get(f"{COLLECTORS}/{collector['id']}"))["attributes"]
    assert attributes["status"] == "down"
    assert attributes["pinged_at"] == isoformat_ms(clock.now())


async def test_every_result_is_recorded_in_the_history(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    from sqlalchemy import select

    from watchpost.history.models import CheckResult

    _, target_id = await target_at(api, free_port())
    await engine_of(app).tick()
    async with app.state.ctx.db.read_sessions() as session:
        [result] = (await session.scalars(select(CheckResult))).all()
    assert (result.subject_type, result.subject_id, result.state) == (
        "collector_target",
        int(target_id),
        "down",
    )
    assert result.at == clock.now()
    assert result.error and "refused" in result.error


async def test_a_target_that_goes_down_opens_one_incident_and_recovery_resolves_it(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    require_tcp("Redis", REDIS)
    collector_id, target_id = await target_at(api, free_port())
    engine = engine_of(app)
    await engine.tick()
    clock.set((await load(app, CollectorTarget, target_id)).next_check_at)
    await engine.tick()  # still down: the same incident continues
    listed = data_list(await api.get("/api/v2/incidents"))
    assert len(listed) == 1
    incident = listed[0]["attributes"]
    assert incident["collector_target_id"] == int(target_id)
    assert "refused" in incident["cause"] and incident["status"] == "started"

    path = f"{COLLECTORS}/{collector_id}/targets/{target_id}"
    data(await api.patch(path, {"port": REDIS[1]}))
    await engine.tick()
    (resolved,) = data_list(await api.get("/api/v2/incidents"))
    assert resolved["attributes"]["status"] == "resolved"
    assert resolved["attributes"]["resolved_at"] == isoformat_ms(clock.now())


def data_list(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]
    return items
