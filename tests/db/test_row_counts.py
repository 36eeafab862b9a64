"""row_counts (kept by triggers), page anchors, and timestamps the database formats."""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from fastapi import FastAPI
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sqlalchemy import (
    String,
    bindparam,
    create_engine,
    delete,
    func,
    insert,
    literal_column,
    select,
)

from tests.factories.api import Api, data
from tests.sources.test_sources_list import insert_sources, page
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.context import AppContext
from watchpost.db.base import UTCDateTime, iso_ms
from watchpost.db.counts import Anchors, RowCount
from watchpost.db.migrate import alembic_config
from watchpost.settings import Settings
from watchpost.sources.models import Source
from watchpost.teams.models import Team
from watchpost.teams.service import get_or_create_team

SOURCES = "/api/v1/sources"
_names = itertools.count()


async def counts_and_versions(ctx: AppContext) -> dict[int, tuple[int, int]]:
    async with ctx.db.read_sessions() as session:
        rows = await session.execute(select(RowCount).where(RowCount.table_name == "sources"))
        return {r.team_id: (r.row_count, r.version) for r in rows.scalars()}


async def actual_counts(ctx: AppContext) -> dict[int, int]:
    async with ctx.db.read_sessions() as session:
        rows = await session.execute(select(Source.team_id, func.count()).group_by(Source.team_id))
        return {team_id: count for team_id, count in rows.tuples()}


def source_row(team_id: int, name: str, now: datetime) -> dict[str, Any]:
    return {
        "team_id": team_id,
        "name": name,
        "platform": "http",
        "table_name": f"t{team_id}_{name}",
        "token_hash": name,
        "token_encrypted": "v1.unused",
        "ingesting_paused": False,
        "logs_retention": 30,
        "metrics_retention": 30,
        "live_tail_pattern": "{message}",
        "created_at": now,
        "updated_at": now,
    }


op = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 1), st.integers(1, 4)),
    st.tuples(st.just("delete"), st.integers(0, 1), st.integers(1, 3)),
)


@hsettings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(op, min_size=1, max_size=10))
def test_counts_follow_every_insert_and_delete(
    settings: Settings, ops: list[tuple[str, int, int]]
) -> None:
    # Each example has its own event loop and engine; the database is the test's.
    asyncio.run(_run_counts(settings, ops))


async def _run_counts(settings: Settings, ops: list[tuple[str, int, int]]) -> None:
    ctx = AppContext.build(settings, FrozenClock())
    now = ctx.clock.now()
    try:
        async with ctx.db.write_sessions() as db, db.begin():
            teams = [
                (await get_or_create_team(db, name=f"team-{next(_names)}", now=now)).id
                for _ in range(2)
            ]
        for kind, which, n in ops:
            team_id = teams[which]
            before = await counts_and_versions(ctx)
            async with ctx.db.write_sessions() as db, db.begin():
                if kind == "add":
                    rows = [source_row(team_id, f"s{next(_names)}", now) for _ in range(n)]
                    await db.execute(insert(Source), rows)
                    changed = n
                else:
                    ids = (
                        await db.scalars(
                            select(Source.id).where(Source.team_id == team_id).limit(n)
                        )
                    ).all()
                    await db.execute(delete(Source).where(Source.id.in_(ids)))
                    changed = len(ids)
            after = await counts_and_versions(ctx)
            actual = await actual_counts(ctx)
            for team in teams:
                assert after.get(team, (0, 0))[0] == actual.get(team, 0)
            old_version = before.get(team_id, (0, None))[1]
            if changed:
                assert after[team_id][1] != old_version
            else:
                assert after.get(team_id, (0, None))[1] == old_version
    finally:
        await ctx.db.dispose()


async def test_deleting_a_team_deletes_its_counts(app: FastAPI, api: Api) -> None:
    await insert_sources(app, api.team_id, 3)
    ctx = app.state.ctx
    assert (await counts_and_versions(ctx))[api.team_id][0] == 3
    async with ctx.db.write_sessions() as db, db.begin():
        await db.execute(delete(Team).where(Team.id == api.team_id))
    assert await counts_and_versions(ctx) == {}
    assert await actual_counts(ctx) == {}


async def test_deep_pages_from_anchors_are_the_offset_pages(app: FastAPI, api: Api) -> None:
    # Anchors every 3 keys from the first offset on, so every page of this small list is
    # a deep page; the versions change in between, so stale anchors would show.
    app.state.ctx.db.anchors = Anchors(every=3, min_offset=0, capacity=2)
    await insert_sources(app, api.team_id, 40)
    for round_ in range(3):
        if round_ == 1:  # gaps in the ids
            listed, _ = await page(api, {"per_page": 250})
            for item in listed[1:30:4]:
                assert (await api.delete(f"{SOURCES}/{item['id']}")).status_code == 204
        if round_ == 2:  # more at the end, fewer at the start
            await insert_sources(app, api.team_id, 7, prefix="more")
            listed, _ = await page(api, {"per_page": 250})
            for item in listed[:5]:
                assert (await api.delete(f"{SOURCES}/{item['id']}")).status_code == 204
        every_id = await _ids_in_order(app, api.team_id)
        for per_page in (1, 2, 5, 7, 250):
            pages = -(-len(every_id) // per_page)
            for number in range(1, pages + 2):
                items, pagination = await page(api, {"per_page": per_page, "page": number})
                start = (number - 1) * per_page
                assert [int(i["id"]) for i in items] == every_id[start : start + per_page]
                assert pagination["last"].endswith(f"page={pages}&per_page={per_page}")


async def _ids_in_order(app: FastAPI, team_id: int) -> list[int]:
    async with app.state.ctx.db.read_sessions() as db:
        stmt = select(Source.id).where(Source.team_id == team_id).order_by(Source.id)
        return list((await db.scalars(stmt)).all())


@hsettings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(moments=st.lists(st.datetimes(timezones=st.just(UTC)), min_size=1, max_size=8))
def test_iso_ms_in_the_database_is_isoformat_ms(
    settings: Settings, moments: list[datetime]
) -> None:
    asyncio.run(_run_iso_ms(settings, moments))


async def _run_iso_ms(settings: Settings, moments: list[datetime]) -> None:
    ctx = AppContext.build(settings, FrozenClock())
    try:
        async with ctx.db.read_sessions() as db:
            for moment in moments:
                value = bindparam("moment", moment, type_=UTCDateTime())
                assert await db.scalar(select(iso_ms(value))) == isoformat_ms(moment)
    finally:
        await ctx.db.dispose()


def test_iso_ms_reads_sqlite_text_without_a_fraction(tmp_path: Path) -> None:
    """Rows written by hand (`CURRENT_TIMESTAMP`) have no fraction: `.000` is added."""
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with engine.connect() as conn:
        column = literal_column("'2026-11-21 09:30:00'", String)
        assert conn.scalar(select(iso_ms(column))) == "2026-11-21T09:30:00.000Z"


def test_migration_counts_the_sources_that_already_exist(tmp_path: Path) -> None:
    url = f"sqlite+watchpost:///{tmp_path / 'old.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0011")
    with sqlite3.connect(tmp_path / "old.db") as conn:
        now = "2026-11-21 09:30:00.000000"
        conn.executemany(
            "INSERT INTO teams (id, name, created_at) VALUES (?, ?, ?)",
            [(1, "acme", now), (2, "globex", now)],
        )
        conn.executemany(
            "INSERT INTO sources (team_id, name, platform, table_name, token_hash, "
            "token_encrypted, ingesting_paused, logs_retention, metrics_retention, "
            "live_tail_pattern, created_at, updated_at) "
            "VALUES (?, ?, 'http', ?, ?, 'v1.x', 0, 30, 30, '{message}', ?, ?)",
            [
                (team, f"s{i}", f"t{team}_s{i}", f"h{team}{i}", now, now)
                for team, i in [(1, 1), (1, 2), (2, 3)]
            ],
        )
    command.upgrade(config, "heads")
    with sqlite3.connect(tmp_path / "old.db") as conn:
        rows = conn.execute("SELECT team_id, row_count FROM row_counts ORDER BY team_id").fetchall()
        assert rows == [(1, 2), (2, 1)]
        conn.execute("DELETE FROM sources WHERE team_id = 1")
        assert conn.execute("SELECT row_count FROM row_counts WHERE team_id = 1").fetchone() == (0,)
    with sqlite3.connect(tmp_path / "old.db") as conn:  # a count that no row backs
        conn.execute("INSERT INTO row_counts VALUES ('monitors', 1, 5, 1)")
    command.downgrade(config, "0012")  # monitors and heartbeats stop being counted
    command.upgrade(config, "heads")
    with sqlite3.connect(tmp_path / "old.db") as conn:
        tables = conn.execute("SELECT DISTINCT table_name FROM row_counts").fetchall()
        assert tables == [("sources",)]
    command.downgrade(config, "0011")
    with sqlite3.connect(tmp_path / "old.db") as conn:
        triggers = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        assert triggers.fetchall() == []
    command.upgrade(config, "heads")


async def test_the_list_reads_no_count(app: FastAPI, api: Api) -> None:
    """The team's whole list takes its size from row_counts, not from COUNT(*)."""
    from tests.sources.test_sources_list import counted_statements

    await insert_sources(app, api.team_id, 5)
    with counted_statements(app) as statements:
        items, pagination = await page(api, {"per_page": 2, "page": 3})
    assert len(items) == 1 and pagination["next"] is None
    assert not [sql for sql in statements if "count(" in sql.lower()]


# ------------------------------------------------- monitors and heartbeats, through the API


def _monitor(i: int) -> dict[str, Any]:
    return {"url": f"https://example.com/{i}"}


def _heartbeat(i: int) -> dict[str, Any]:
    return {"name": f"job {i}"}


COLLECTIONS: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    "monitors": ("/api/v2/monitors", _monitor),
    "heartbeats": ("/api/v2/heartbeats", _heartbeat),
}


@pytest.mark.parametrize("table", sorted(COLLECTIONS))
async def test_lists_of_monitors_and_heartbeats_page_from_counts_and_anchors(
    app: FastAPI, api: Api, other_api: Api, table: str
) -> None:
    path, body = COLLECTIONS[table]
    app.state.ctx.db.anchors = Anchors(every=2, min_offset=0, capacity=4)
    created = [data(await api.post(path, body(i)), 201)["id"] for i in range(9)]
    data(await other_api.post(path, body(99)), 201)
    for gone in created[1:8:3]:
        assert (await api.delete(f"{path}/{gone}")).status_code == 204
    kept = [int(i) for i in created if i not in created[1:8:3]]
    async with app.state.ctx.db.read_sessions() as db:
        counted = await db.scalar(
            select(RowCount.row_count).where(
                RowCount.table_name == table, RowCount.team_id == api.team_id
            )
        )
    assert counted == len(kept)
    for per_page in (1, 2, 4):
        pages = -(-len(kept) // per_page)
        for number in range(1, pages + 2):
            response = await api.get(path, params={"per_page": per_page, "page": number})
            body_ = response.json()
            start = (number - 1) * per_page
            assert [int(i["id"]) for i in body_["data"]] == kept[start : start + per_page]
            assert body_["pagination"]["last"].endswith(f"page={pages}&per_page={per_page}")


async def test_a_filtered_monitor_list_still_counts_what_it_shows(api: Api) -> None:
    for i in range(3):
        data(await api.post("/api/v2/monitors", {"url": f"https://example.com/{i % 2}"}), 201)
    response = await api.get(
        "/api/v2/monitors", params={"url": "https://example.com/0", "per_page": 1}
    )
    assert len(response.json()["data"]) == 1
    assert response.json()["pagination"]["last"].endswith("page=2&per_page=1")
