"""The numbers a target's probe reads are kept as metric samples, readable through the API."""

from __future__ import annotations

from datetime import timedelta

from fastapi import FastAPI

from tests.engine.test_engine_targets import COLLECTORS, target_at
from tests.factories.api import Api, data
from tests.factories.engine import engine_of
from tests.factories.servers import REDIS, free_port, require_tcp
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.collectors.metrics import METRIC_RETENTION, prune_samples, sample_row
from watchpost.collectors.schemas import MetricSampleAttributes


async def test_each_successful_check_keeps_its_numbers(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    require_tcp("Redis", REDIS)
    collector_id, target_id = await target_at(api, REDIS[1])
    engine = engine_of(app)
    first = clock.now()
    await engine.tick()
    clock.advance(timedelta(seconds=app.state.ctx.settings.target_check_interval * 2))
    await engine.tick()
    path = f"{COLLECTORS}/{collector_id}/targets/{target_id}/metrics"
    response = await api.get(path)
    assert response.status_code == 200, response.text
    samples = response.json()["data"]
    assert [sample["type"] for sample in samples] == ["collector_target_metric_sample"] * 2
    assert samples[0]["attributes"]["at"] == isoformat_ms(first)
    for sample in samples:
        attributes = MetricSampleAttributes.model_validate(sample["attributes"], strict=True)
        assert attributes.values["connected_clients"] >= 1
        assert "used_memory" in attributes.values


async def test_failed_checks_keep_no_samples(app: FastAPI, api: Api) -> None:
    collector_id, target_id = await target_at(api, free_port())
    await engine_of(app).tick()
    response = await api.get(f"{COLLECTORS}/{collector_id}/targets/{target_id}/metrics")
    assert response.status_code == 200
    assert response.json()["data"] == []


async def test_samples_older_than_the_retention_are_pruned(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    require_tcp("Redis", REDIS)
    collector_id, target_id = await target_at(api, REDIS[1])
    await engine_of(app).tick()
    path = f"{COLLECTORS}/{collector_id}/targets/{target_id}/metrics"
    assert len((await api.get(path)).json()["data"]) == 1
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        assert await prune_samples(session, now=clock.now() + METRIC_RETENTION) == 0
    async with ctx.db.write_sessions() as session, session.begin():
        later = clock.now() + METRIC_RETENTION + timedelta(seconds=1)
        assert await prune_samples(session, now=later) == 1
    assert (await api.get(path)).json()["data"] == []


def test_a_sample_keeps_only_finite_numbers() -> None:
    at = FrozenClock().now()
    assert sample_row(team_id=1, target_id=2, at=at, metrics={}) is None
    assert sample_row(team_id=1, target_id=2, at=at, metrics={"nan": float("nan")}) is None
    row = sample_row(team_id=1, target_id=2, at=at, metrics={"ops": 5, "inf": float("inf")})
    assert row is not None and row["values"] == {"ops": 5.0}


async def test_another_teams_target_metrics_are_404(api: Api, other_api: Api) -> None:
    collector = data(await api.post(COLLECTORS, {"name": "main"}), 201)["id"]
    body = {"kind": "redis", "host": "127.0.0.1", "port": 6379}
    target = data(await api.post(f"{COLLECTORS}/{collector}/targets", body), 201)["id"]
    response = await other_api.get(f"{COLLECTORS}/{collector}/targets/{target}/metrics")
    assert response.status_code == 404
