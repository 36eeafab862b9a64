"""Group commit (db/group_commit.py): items that arrive together share one transaction, each
waiter gets its own result after the commit, and a failed batch writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from fastapi import FastAPI
from sqlalchemy import Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.db.group_commit import GroupCommit
from watchpost.teams.models import Team

TEAMS: Table = Team.__table__  # type: ignore[assignment]
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


class Recorder:
    """An apply function that inserts a team per item and says how it was called."""

    def __init__(self, *, fail_on: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self.fail_on = fail_on

    async def __call__(self, session: AsyncSession, names: Sequence[str]) -> list[str]:
        self.batches.append(list(names))
        for name in names:
            await session.execute(insert(TEAMS).values(name=name, created_at=CREATED))
            if name == self.fail_on:
                raise RuntimeError(f"cannot take {name}")
        return [name.upper() for name in names]


async def teams(ctx: AppContext) -> set[str]:
    async with ctx.db.read_sessions() as session:
        return set(await session.scalars(select(TEAMS.c.name)))


def group(ctx: AppContext, apply: Recorder, most: int = 500) -> GroupCommit[str, str]:
    return GroupCommit(ctx.db.write_sessions, apply, most=most)


async def test_a_lone_item_is_written_at_once(app: FastAPI) -> None:
    ctx: AppContext = app.state.ctx
    apply = Recorder()
    assert await group(ctx, apply).submit("solo") == "SOLO"
    assert apply.batches == [["solo"]]
    assert await teams(ctx) == {"solo"}


async def test_items_arriving_together_share_transactions_and_get_their_own_result(
    app: FastAPI,
) -> None:
    ctx: AppContext = app.state.ctx
    apply = Recorder()
    commits = group(ctx, apply, most=8)
    names = [f"team {n}" for n in range(30)]
    assert await asyncio.gather(*(commits.submit(name) for name in names)) == [
        name.upper() for name in names
    ]
    assert sorted(name for batch in apply.batches for name in batch) == sorted(names)
    assert len(apply.batches) < len(names)
    assert all(len(batch) <= 8 for batch in apply.batches)
    assert await teams(ctx) == set(names)


async def test_a_failed_batch_writes_nothing_and_every_waiter_hears_of_it(app: FastAPI) -> None:
    ctx: AppContext = app.state.ctx
    apply = Recorder(fail_on="b")
    commits = group(ctx, apply)
    outcomes = await asyncio.gather(
        *(commits.submit(name) for name in ("a", "b", "c")), return_exceptions=True
    )
    assert apply.batches == [["a", "b", "c"]]
    assert all(isinstance(outcome, RuntimeError) for outcome in outcomes), outcomes
    assert await teams(ctx) == set()
    # the next item starts a batch of its own
    assert await commits.submit("d") == "D"
    assert await teams(ctx) == {"d"}


async def test_a_waiter_that_goes_away_leaves_the_others_and_its_item_is_written(
    app: FastAPI,
) -> None:
    ctx: AppContext = app.state.ctx
    apply = Recorder()
    commits = group(ctx, apply)
    waiters = [asyncio.ensure_future(commits.submit(name)) for name in ("x", "y", "z")]
    await asyncio.sleep(0)  # each has submitted
    waiters[1].cancel()
    done = await asyncio.gather(*waiters, return_exceptions=True)
    assert done[0] == "X" and done[2] == "Z"
    assert isinstance(done[1], asyncio.CancelledError)
    assert await teams(ctx) == {"x", "y", "z"}


async def test_the_database_keeps_one_group_commit_per_function(app: FastAPI) -> None:
    ctx: AppContext = app.state.ctx
    apply = Recorder()
    assert ctx.db.grouped(apply) is ctx.db.grouped(apply)
    assert ctx.db.grouped(apply) is not ctx.db.grouped(Recorder())
    with pytest.raises(RuntimeError):
        await ctx.db.grouped(Recorder(fail_on="q")).submit("q")
