"""A group or urgency deleted while another transaction names it: nothing is left naming it.

The naming transaction is held open while the DELETE runs through the API; on PostgreSQL the
test goes on once the DELETE waits for the naming transaction's lock (SQLite runs one writer
at a time: the DELETE waits for the whole transaction)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from tests.conftest import Backend
from tests.factories.api import Api, data
from watchpost.policies import service as policies
from watchpost.policies.schemas import PolicyCreate
from watchpost.teams.service import Principal
from watchpost.urgencies import service as urgencies
from watchpost.urgencies.schemas import UrgencyCreate

WAITING = text(
    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE :statement"
)


async def _delete_while_naming(
    app: FastAPI,
    backend: Backend,
    delete: Callable[[], Coroutine[Any, Any, httpx.Response]],
    statement: str,
    name: Callable[[AsyncSession], Awaitable[Any]],
) -> None:
    """`name` in a transaction held open until `delete` (an API call whose SQL starts with
    `statement`) is under way; then both finish."""
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        await name(session)
        deleting = asyncio.create_task(delete())
        if backend.name == "postgres":
            async with ctx.db.read_sessions() as watcher:
                for _ in range(1000):  # bounded poll: until the DELETE waits on our lock
                    if await watcher.scalar(WAITING, {"statement": f"{statement}%"}):
                        break
                    await watcher.rollback()
                    await asyncio.sleep(0.01)
                else:
                    raise AssertionError("the DELETE never waited for the lock")
        else:
            await asyncio.sleep(0)  # let the DELETE start: it queues for the write lock
    assert (await deleting).status_code == 204


def _caller(api: Api) -> Principal:
    return Principal(team_id=api.team_id, team_name=api.team_name, token_id=0)


async def test_an_urgency_joining_a_group_being_deleted_is_left_out_of_it(
    app: FastAPI, api: Api, backend: Backend
) -> None:
    group = int(data(await api.post("/api/v2/urgency-groups", {"name": "Levels"}), 201)["id"])
    made: list[int] = []

    async def join(session: AsyncSession) -> None:
        body = UrgencyCreate(name="Joining", urgency_group_id=group)
        made.append((await urgencies.make(session, _caller(api), app.state.ctx, body)).id)

    await _delete_while_naming(
        app,
        backend,
        lambda: api.delete(f"/api/v2/urgency-groups/{group}"),
        "DELETE FROM urgency_groups",
        join,
    )
    shown = data(await api.get(f"/api/v2/urgencies/{made[0]}"))["attributes"]
    assert shown["urgency_group_id"] is None


async def test_a_step_naming_an_urgency_being_deleted_loses_it(
    app: FastAPI, api: Api, backend: Backend
) -> None:
    urgency = int(data(await api.post("/api/v2/urgencies", {"name": "Gone"}), 201)["id"])
    made: list[int] = []

    async def name_it(session: AsyncSession) -> None:
        body = PolicyCreate.model_validate(
            {"name": "Ops", "steps": [{"type": "escalation", "urgency_id": urgency}]}
        )
        made.append((await policies.make(session, _caller(api), app.state.ctx, body)).id)

    await _delete_while_naming(
        app,
        backend,
        lambda: api.delete(f"/api/v2/urgencies/{urgency}"),
        "DELETE FROM urgencies",
        name_it,
    )
    steps = data(await api.get(f"/api/v3/policies/{made[0]}"))["attributes"]["steps"]
    assert steps == [{"type": "escalation"}]
