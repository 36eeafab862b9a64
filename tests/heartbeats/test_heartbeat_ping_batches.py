"""Success pings of up heartbeats arriving together are written in one transaction
(heartbeats/pings.py record_successes through db/group_commit.py): the counts, the ring of
logged pings and the deadlines come out as if each had been written alone, and a ping the
common case cannot take (pending, paused, unknown, a failure) is decided on its own."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import event, func, select

from tests.factories.api import Api, data
from tests.factories.heartbeats import create_heartbeat, incidents, row
from watchpost.clock import FrozenClock
from watchpost.heartbeats.models import HeartbeatPing
from watchpost.heartbeats.pings import PING_LOG_SIZE, ping_log


async def statuses(client: httpx.AsyncClient, urls: list[str]) -> list[int]:
    answers = await asyncio.gather(*(client.get(url) for url in urls))
    return [answer.status_code for answer in answers]


async def test_pings_together_count_and_log_as_one_by_one(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    busy = await create_heartbeat(api)
    quiet = await create_heartbeat(api, name="quiet job")
    for made in (busy, quiet):
        assert (await client.get(made.url)).status_code == 200  # pending -> up
    clock.advance(30)
    urls = [busy.url] * 150 + [quiet.url] * 10
    assert await statuses(client, urls) == [200] * len(urls)
    first, second = await row(app, busy.id), await row(app, quiet.id)
    assert (first.ping_count, second.ping_count) == (151, 11)
    assert first.last_ping_at == second.last_ping_at == clock.now()
    assert first.status == second.status == "up"
    async with app.state.ctx.db.read_sessions() as session:
        logged = await ping_log(session, heartbeat_id=busy.id)
        total = await session.scalar(select(func.count()).select_from(HeartbeatPing))
    assert [ping.seq for ping in logged] == list(range(151, 151 - PING_LOG_SIZE, -1))
    assert {ping.at for ping in logged} == {clock.now()}
    assert total == PING_LOG_SIZE + 11


async def test_pings_the_common_case_cannot_take_are_decided_on_their_own(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    up = await create_heartbeat(api)
    assert (await client.get(up.url)).status_code == 200
    pending = await create_heartbeat(api, name="never pinged")
    paused = await create_heartbeat(api, name="paused", paused=True)
    failing = await create_heartbeat(api, name="failing")
    assert (await client.get(failing.url)).status_code == 200
    urls = [
        up.url,
        pending.url,
        paused.url,
        f"{failing.url}/fail",
        up.url,
        "/api/v1/heartbeat/nope",
    ]
    assert await statuses(client, urls) == [200, 200, 200, 200, 200, 404]
    assert [(await row(app, made.id)).status for made in (up, pending, paused, failing)] == [
        "up",
        "up",
        "paused",
        "down",
    ]
    assert (await row(app, up.id)).ping_count == 3
    assert (await row(app, pending.id)).ping_count == 1
    assert (await row(app, paused.id)).ping_count == 0
    assert len(await incidents(app, failing.id)) == 1


async def test_pings_arriving_together_share_commits(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    commits: list[object] = []

    def counted(*_args: Any) -> None:
        commits.append(None)

    engine = app.state.ctx.db.engine.sync_engine
    event.listen(engine, "commit", counted)
    try:
        assert await statuses(client, [made.url] * 40) == [200] * 40
    finally:
        event.remove(engine, "commit", counted)
    assert (await row(app, made.id)).ping_count == 41
    assert 1 <= len(commits) < 40, len(commits)


async def test_a_heartbeat_read_shows_the_pings_of_a_batch(
    api: Api, client: httpx.AsyncClient
) -> None:
    made = await create_heartbeat(api)
    assert await statuses(client, [made.url] * 5) == [200] * 5
    shown = data(await api.get(f"/api/v2/heartbeats/{made.id}"))
    assert shown["attributes"]["status"] == "up"
