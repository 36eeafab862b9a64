"""The ping log: every recorded ping is kept with its kind, exit code, body, address and user
agent, newest first, in a ring of PING_LOG_SIZE rows per heartbeat; migration 0034 builds
the table as the models say."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from alembic import command
from fastapi import FastAPI
from sqlalchemy import func, select

from tests.factories.api import Api
from tests.factories.heartbeats import create_heartbeat, row
from tests.factories.migrations import differences, fresh_database, tables
from watchpost.clock import FrozenClock
from watchpost.db.migrate import alembic_config, upgrade
from watchpost.heartbeats.models import HeartbeatPing
from watchpost.heartbeats.pings import OUTPUT_LIMIT, PING_LOG_SIZE, ping_log


async def logged(app: FastAPI, heartbeat_id: int) -> list[HeartbeatPing]:
    async with app.state.ctx.db.read_sessions() as session:
        return await ping_log(session, heartbeat_id=heartbeat_id)


async def stored(app: FastAPI) -> int:
    async with app.state.ctx.db.read_sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(HeartbeatPing)) or 0)


async def test_each_ping_is_logged_as_it_came(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    agent = {"User-Agent": "backup-job/2.0 " + "x" * 400}
    assert (await client.get(made.url, headers=agent)).status_code == 200
    clock.advance(10)
    assert (await client.post(f"{made.url}/0", content=b"all fine")).status_code == 200
    clock.advance(10)
    assert (await client.post(f"{made.url}/fail", content=b"disk \x00 full")).status_code == 200
    clock.advance(10)
    big = b"e" * (OUTPUT_LIMIT + 500)
    assert (await client.post(f"{made.url}/42", content=big)).status_code == 200
    pings = await logged(app, made.id)
    assert [(p.seq, p.kind, p.exit_code) for p in pings] == [
        (4, "fail", 42),
        (3, "fail", None),
        (2, "success", 0),
        (1, "success", None),
    ]
    assert [p.at for p in pings] == [clock.now() - timedelta(seconds=10 * k) for k in range(4)]
    assert pings[0].body == "e" * OUTPUT_LIMIT and pings[0].body_truncated
    assert pings[1].body == "disk \ufffd full" and not pings[1].body_truncated
    assert pings[2].body == "all fine" and pings[3].body is None
    assert pings[3].user_agent == ("backup-job/2.0 " + "x" * 400)[:255]
    assert all(p.address == "127.0.0.1" for p in pings)
    assert (await row(app, made.id)).ping_count == 4


async def test_the_log_keeps_the_newest_hundred_of_each_heartbeat(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    first = await create_heartbeat(api)
    second = await create_heartbeat(api, name="other job")
    total = PING_LOG_SIZE + 37
    for n in range(total):
        clock.advance(1)
        url = first.url if n % 3 else f"{first.url}/{n % 250}"
        assert (await client.get(url)).status_code == 200
    assert (await client.get(second.url)).status_code == 200
    pings = await logged(app, first.id)
    assert [p.seq for p in pings] == list(range(total, total - PING_LOG_SIZE, -1))
    assert (pings[0].at, pings[-1].at) == (clock.now(), clock.now() - timedelta(seconds=99))
    assert [p.seq for p in await logged(app, second.id)] == [1]
    assert await stored(app) == PING_LOG_SIZE + 1


async def test_concurrent_pings_each_get_their_own_row(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    urls = [made.url if n % 4 else f"{made.url}/fail" for n in range(30)]
    answers = await asyncio.gather(*(client.get(url) for url in urls))
    assert {answer.status_code for answer in answers} == {200}
    assert [p.seq for p in await logged(app, made.id)] == list(range(31, 0, -1))


async def test_a_paused_heartbeat_logs_nothing_and_deleting_forgets_the_log(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    assert (await api.patch(f"/api/v2/heartbeats/{made.id}", {"paused": True})).status_code == 200
    assert (await client.get(f"{made.url}/fail")).status_code == 200
    assert [p.seq for p in await logged(app, made.id)] == [1]
    assert (await api.delete(f"/api/v2/heartbeats/{made.id}")).status_code == 204
    assert await stored(app) == 0


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_migration_0034_builds_the_models_tables(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0033")
        upgrade(url)
        assert differences(url, ["heartbeat_pings", "ping_count"]) == []
        command.downgrade(alembic_config(url), "0033")
        assert tables(url, {"heartbeat_pings", "heartbeats"}) == {"heartbeats"}
        upgrade(url)
        assert tables(url, {"heartbeat_pings"}) == {"heartbeat_pings"}
