"""Recording observations: spans attributed to states, split at UTC hour and day boundaries."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import event

from tests.factories.api import Api
from tests.factories.history import CheckResult, at, count, obs, rollups, seconds, write
from watchpost.history.reading import histories, stats
from watchpost.history.service import Observation


async def test_span_belongs_to_the_previous_observations_state(app: FastAPI, api: Api) -> None:
    t = api.team_id
    await write(app, [obs(t, at(1, 10)), obs(t, at(1, 10, 1), "down")])
    await write(app, [obs(t, at(1, 10, 3), latency_ms=40), obs(t, at(1, 10, 4), latency_ms=20)])
    (hour,) = (await rollups(app, "hour")).values()
    assert (hour.up_s, hour.down_s, hour.maintenance_s) == (60 + 60, 120, 0)
    assert (hour.checks, hour.failures) == (4, 1)
    assert (hour.latency_sum, hour.latency_count) == (60, 2)
    assert (hour.latency_min, hour.latency_max) == (20, 40)
    (day,) = (await rollups(app, "day")).values()
    assert (day.up_s, day.down_s, day.checks) == (120, 120, 4)


async def test_spans_split_at_hour_and_day_boundaries(app: FastAPI, api: Api) -> None:
    t = api.team_id
    await write(app, [obs(t, at(1, 23, 59, 30), valid_for_s=3 * 3600), obs(t, at(2, 1, 0, 30))])
    assert seconds(await rollups(app, "hour")) == {
        at(1, 23): (30, 0, 0),
        at(2, 0): (3600, 0, 0),
        at(2, 1): (30, 0, 0),
    }
    assert seconds(await rollups(app, "day")) == {at(1): (30, 0, 0), at(2): (3630, 0, 0)}


async def test_time_beyond_valid_for_is_unobserved(app: FastAPI, api: Api) -> None:
    t = api.team_id
    await write(app, [obs(t, at(1, 10), "down", valid_for_s=120), obs(t, at(1, 15))])
    assert seconds(await rollups(app, "hour")) == {at(1, 10): (0, 120, 0)}
    async with app.state.ctx.db.read_sessions() as session:
        (seen,) = (
            await histories(
                session, subject_type="monitor", subject_ids=[1], since=at(1), now=at(1, 15, 1)
            )
        ).values()
    assert seen.state == "up"  # the 15:00 observation still stands at 15:01
    assert [(b.start, b.observed_s) for b in seen.buckets][-1] == (at(1, 15), 60)
    async with app.state.ctx.db.read_sessions() as session:
        (later,) = (
            await histories(
                session, subject_type="monitor", subject_ids=[1], since=at(1), now=at(1, 18)
            )
        ).values()
    assert later.state is None  # the checker stopped: not observed now
    assert sum(b.observed_s for b in later.buckets) == 120 + 120


async def test_maintenance_time(app: FastAPI, api: Api) -> None:
    t = api.team_id
    await write(
        app,
        [
            obs(t, at(1, 2), "maintenance", valid_for_s=7200),
            obs(t, at(1, 3, 30)),
            obs(t, at(1, 3, 31)),
        ],
    )
    assert seconds(await rollups(app, "hour")) == {at(1, 2): (0, 0, 3600), at(1, 3): (60, 0, 1800)}


async def test_late_result_is_counted_but_rewrites_no_time(app: FastAPI, api: Api) -> None:
    t = api.team_id
    await write(app, [obs(t, at(1, 10)), obs(t, at(1, 10, 2))])
    await write(app, [obs(t, at(1, 10, 1), "down")])
    (hour,) = (await rollups(app, "hour")).values()
    assert (hour.up_s, hour.down_s, hour.checks, hour.failures) == (120, 0, 3, 1)
    await write(app, [obs(t, at(1, 10, 3))])  # still follows the 10:02 observation
    (hour,) = (await rollups(app, "hour")).values()
    assert (hour.up_s, hour.down_s) == (180, 0)


async def test_batch_of_a_thousand_in_a_few_statements(app: FastAPI, api: Api) -> None:
    t = api.team_id
    rng = random.Random(7)
    batch: list[Observation] = []
    expected: dict[int, list[float]] = {}
    for subject in range(1, 11):
        states = [rng.choice(["up", "up", "down", "maintenance"]) for _ in range(100)]
        batch += [
            obs(t, at(1) + timedelta(minutes=3 * n), state, subject_id=subject, valid_for_s=600)  # type: ignore[arg-type]
            for n, state in enumerate(states)
        ]
        totals = [0.0, 0.0, 0.0]
        for state in states[:-1]:
            totals[["up", "down", "maintenance"].index(state)] += 180
        expected[subject] = totals
    rng.shuffle(batch)

    statements: list[str] = []
    engine = app.state.ctx.db.engine.sync_engine

    def counted(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", counted)
    try:
        await write(app, batch)
    finally:
        event.remove(engine, "before_cursor_execute", counted)
    recording = [s for s in statements if not s.startswith(("BEGIN", "COMMIT"))]
    assert len(recording) <= 8, recording

    assert await count(app, CheckResult) == 1000
    for subject, totals in expected.items():
        days = await rollups(app, "day", subject_id=subject)
        hours = await rollups(app, "hour", subject_id=subject)
        for rows in (days, hours):
            assert [
                sum(getattr(r, name) for r in rows.values())
                for name in ("up_s", "down_s", "maintenance_s")
            ] == pytest.approx(totals)
            assert sum(r.checks for r in rows.values()) == 100


async def test_response_time_stats_per_bucket(app: FastAPI, api: Api) -> None:
    t = api.team_id
    await write(app, [obs(t, at(1, 10), latency_ms=100), obs(t, at(1, 10, 30), "down")])
    await write(app, [obs(t, at(1, 11), latency_ms=50), obs(t, at(1, 11, 1), latency_ms=150)])
    async with app.state.ctx.db.read_sessions() as session:
        found = await stats(session, subject_type="monitor", subject_id=1, since=at(1), now=at(2))
    assert [(s.start, s.checks, s.failures) for s in found] == [
        (at(1, 10), 2, 1),
        (at(1, 11), 2, 0),
    ]
    assert [(s.latency_avg_ms, s.latency_min_ms, s.latency_max_ms) for s in found] == [
        (100, 100, 100),
        (100, 50, 150),
    ]
