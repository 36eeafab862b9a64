"""Pruning keeps what is stored per subject bounded, however long the checks run."""

from __future__ import annotations

from datetime import timedelta

from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.history import CheckResult, CheckRollup, at, count, obs, write
from watchpost.history.service import RAW_MAX_PER_SUBJECT, forget, prune


async def _prune(app: FastAPI, **bounds: object) -> int:
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        return await prune(session, **bounds)  # type: ignore[arg-type]


async def test_long_run_stays_within_bounds(app: FastAPI, api: Api) -> None:
    """Ten simulated days of a check a minute for two subjects, pruned every 6 hours."""
    t = api.team_id
    bounds = {
        "raw_for": timedelta(hours=24),
        "raw_max": 500,
        "hourly_for": timedelta(days=2),
        "daily_for": timedelta(days=4),
    }
    start = at(1)
    for block in range(40):
        batch = [
            obs(t, start + timedelta(minutes=m), subject_id=subject)
            for subject in (1, 2)
            for m in range(block * 360, (block + 1) * 360)
        ]
        await write(app, batch)
        now = start + timedelta(minutes=(block + 1) * 360)
        await _prune(app, now=now, **bounds)
        for subject in (1, 2):
            assert await count(app, CheckResult, subject_id=subject) <= 500
            hourly = await count(app, CheckRollup, subject_id=subject, granularity="hour")
            daily = await count(app, CheckRollup, subject_id=subject, granularity="day")
            assert hourly <= 2 * 24 + 1
            assert daily <= 4 + 1
    # what is kept is the newest
    assert await count(app, CheckResult, subject_id=1) == 500


async def test_defaults_keep_a_day_of_raw_results(app: FastAPI, api: Api) -> None:
    t = api.team_id
    # two days of a check every 30 s: the last day is 2,880 results
    batch = [obs(t, at(1) + timedelta(seconds=30 * n)) for n in range(2 * 2880)]
    await write(app, batch)
    deleted = await _prune(app, now=at(3))
    assert deleted == 2880
    assert await count(app, CheckResult) == 2880 <= RAW_MAX_PER_SUBJECT
    assert await count(app, CheckRollup, granularity="hour") == 48  # rollups stay


async def test_forget_removes_a_subject(app: FastAPI, api: Api) -> None:
    t = api.team_id
    await write(app, [obs(t, at(1)), obs(t, at(1, 1)), obs(t, at(1), subject_id=2)])
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await forget(session, subject_type="monitor", subject_id=1)
    assert await count(app, CheckResult, subject_id=1) == 0
    assert await count(app, CheckRollup, subject_id=1) == 0
    assert await count(app, CheckResult, subject_id=2) == 1
