"""Deleting a monitored object through the API deletes its check history too."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from tests.factories.api import Api, data
from watchpost.clock import FrozenClock
from watchpost.history.models import CheckResult, CheckRollup, LastObservation
from watchpost.history.service import Observation, record


async def _record(
    app: FastAPI, clock: FrozenClock, subject_type: str, subject_id: int, team_id: int
) -> None:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        await record(
            session,
            [
                Observation(
                    team_id=team_id,
                    subject_type=subject_type,  # type: ignore[arg-type]
                    subject_id=subject_id,
                    at=clock.now() + timedelta(seconds=step * 60),
                    state="up",
                    valid_for_s=120,
                    latency_ms=12.0,
                )
                for step in range(3)
            ],
        )


async def _rows(app: FastAPI, subject_type: str, subject_id: int) -> int:
    total = 0
    async with app.state.ctx.db.read_sessions() as session:
        for model in (CheckResult, CheckRollup, LastObservation):
            total += (
                await session.scalar(
                    select(func.count())
                    .select_from(model)
                    .where(model.subject_type == subject_type, model.subject_id == subject_id)
                )
                or 0
            )
    return total


async def _created(api: Api, path: str, body: dict[str, object]) -> int:
    return int(data(await api.post(path, body), 201)["id"])


@pytest.mark.parametrize(
    ("subject_type", "collection", "body"),
    [
        ("monitor", "/api/v2/monitors", {"url": "https://example.com"}),
        ("heartbeat", "/api/v2/heartbeats", {"name": "nightly backup"}),
    ],
)
async def test_deleting_the_object_forgets_its_history(
    app: FastAPI,
    api: Api,
    clock: FrozenClock,
    subject_type: str,
    collection: str,
    body: dict[str, object],
) -> None:
    kept = await _created(api, collection, body)
    gone = await _created(api, collection, body)
    for subject_id in (kept, gone):
        await _record(app, clock, subject_type, subject_id, api.team_id)
    assert await _rows(app, subject_type, gone) > 0
    assert (await api.delete(f"{collection}/{gone}")).status_code == 204
    assert await _rows(app, subject_type, gone) == 0
    assert await _rows(app, subject_type, kept) > 0


async def test_deleting_a_target_or_its_collector_forgets_target_history(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    collector = await _created(api, "/api/v1/collectors", {"name": "main"})
    targets = f"/api/v1/collectors/{collector}/targets"
    body = {"kind": "redis", "host": "127.0.0.1", "port": 6379}
    first, second = await _created(api, targets, body), await _created(api, targets, body)
    for target in (first, second):
        await _record(app, clock, "collector_target", target, api.team_id)
    assert (await api.delete(f"{targets}/{first}")).status_code == 204
    assert await _rows(app, "collector_target", first) == 0
    assert await _rows(app, "collector_target", second) > 0
    assert (await api.delete(f"/api/v1/collectors/{collector}")).status_code == 204
    assert await _rows(app, "collector_target", second) == 0
