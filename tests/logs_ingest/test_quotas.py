"""Daily quotas counted in the database (ingestion/quotas.py), on both backends: processes
share a source's day, a restart keeps it, the next UTC day starts afresh, and while the
database cannot be reached each process goes on counting by itself. Two `Quotas` on the same
database stand for two processes (what each holds is only its own memory and the database)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api
from tests.factories.log_ingest import create_source
from tests.factories.migrations import differences, fresh_database, tables
from watchpost.clock import FrozenClock
from watchpost.db.migrate import alembic_config, upgrade
from watchpost.db.session import Database, create_engine
from watchpost.ingestion.quotas import SYNC, Quotas
from watchpost.sources.models import SourceQuotaUsage

HALF_A_DAY = 12 * 3600.0
STEP = SYNC.total_seconds()


async def saved(app: FastAPI, source_id: int) -> dict[int, int]:
    """The source's rows: day ordinal -> events."""
    async with app.state.ctx.db.read_sessions() as session:
        rows = await session.execute(
            select(SourceQuotaUsage.day, SourceQuotaUsage.events).where(
                SourceQuotaUsage.source_id == source_id
            )
        )
        return {int(day): int(events) for day, events in rows}


async def a_source_at(api: Api, clock: FrozenClock, *, hour: int, minute: int) -> int:
    """A new source's id, the clock set to that time of its day."""
    clock.set(clock.now().replace(hour=hour, minute=minute, second=0, microsecond=0))
    source_id, _ = await create_source(api)
    return source_id


async def test_processes_share_a_source_day_and_a_restart_keeps_it(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    source_id = await a_source_at(api, clock, hour=12, minute=0)
    today = clock.now().toordinal()
    db = app.state.ctx.db
    one, two = Quotas(100, db=db), Quotas(100, db=db)
    assert await one.take(source_id, 60, clock.now()) == 0
    assert await two.take(source_id, 30, clock.now()) == 0  # neither has heard of the other
    clock.advance(SYNC)
    assert await one.take(source_id, 1, clock.now()) == 0  # adds its 60, reads 60
    assert await two.take(source_id, 9, clock.now()) == 0  # adds its 30, reads 90: 99
    assert await two.take(source_id, 2, clock.now()) == HALF_A_DAY - STEP  # 101: refused whole
    assert await saved(app, source_id) == {today: 90}

    restarted = Quotas(100, db=db)  # a new process: what was saved counts
    assert await restarted.take(source_id, 11, clock.now()) == HALF_A_DAY - STEP
    assert await restarted.take(source_id, 10, clock.now()) == 0
    clock.advance(SYNC)
    assert await one.take(source_id, 0, clock.now()) == 0  # nothing to count: no sync either
    assert await restarted.take(source_id, 1, clock.now()) == HALF_A_DAY - 2 * STEP
    assert await saved(app, source_id) == {today: 100}


async def test_the_next_utc_day_starts_afresh_and_old_days_are_removed(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    source_id = await a_source_at(api, clock, hour=23, minute=59)
    first = clock.now().toordinal()
    quotas = Quotas(5, db=app.state.ctx.db)
    assert await quotas.take(source_id, 5, clock.now()) == 0
    clock.advance(SYNC)
    assert await quotas.take(source_id, 1, clock.now()) == 58.0  # to midnight
    clock.advance(60)  # the next UTC day
    assert await quotas.take(source_id, 5, clock.now()) == 0
    clock.advance(SYNC)
    assert await quotas.take(source_id, 1, clock.now()) > 0
    assert await saved(app, source_id) == {first: 5, first + 1: 5}
    clock.advance(timedelta(days=1))  # the first day is the day before yesterday now
    assert await quotas.take(source_id, 2, clock.now()) == 0
    assert await saved(app, source_id) == {first + 1: 5}
    other_id, _ = await create_source(api)
    assert await quotas.take(other_id, 5, clock.now()) == 0  # each source its own count
    assert await quotas.take(other_id, 1, clock.now()) > 0
    assert await quotas.take(source_id, 3, clock.now()) == 0


async def test_an_unreachable_database_leaves_each_process_counting_alone(
    app: FastAPI, api: Api, clock: FrozenClock, caplog: pytest.LogCaptureFixture
) -> None:
    source_id, _ = await create_source(api)
    # nothing listens on port 9: every connection is refused
    away = Database(create_engine("postgresql+psycopg://nobody@127.0.0.1:9/none"))
    try:
        quotas = Quotas(10, db=away)
        assert await quotas.take(source_id, 6, clock.now()) == 0
        assert await quotas.take(source_id, 4, clock.now()) == 0
        assert await quotas.take(source_id, 1, clock.now()) > 0  # counted in the process
        assert "the daily quota's count was not saved" in caplog.text
        # the database back: what was counted meanwhile is added to it
        quotas.db = app.state.ctx.db
        clock.advance(SYNC)
        assert await quotas.take(source_id, 1, clock.now()) > 0
        assert await saved(app, source_id) == {clock.now().toordinal(): 10}
    finally:
        await away.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_migration_builds_the_model_and_goes_down_and_up(kind: str, tmp_path: Path) -> None:
    from alembic import command

    with fresh_database(kind, tmp_path) as url:
        upgrade(url)
        assert tables(url, {"source_quota_usage"}) == {"source_quota_usage"}
        assert differences(url, ["source_quota_usage"]) == []
        command.downgrade(alembic_config(url), "0031")
        assert tables(url, {"source_quota_usage"}) == set()
        upgrade(url)
        assert differences(url, ["source_quota_usage"]) == []
