"""Listing sources (spec endpoint 4): pagination, order, and a constant number of queries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fastapi import FastAPI
from sqlalchemy import event

from tests.factories.api import Api, data, errors
from watchpost.crypto import hash_token
from watchpost.sources.models import Source

SOURCES = "/api/v1/sources"


async def insert_sources(app: FastAPI, team_id: int, count: int, *, prefix: str = "bulk") -> None:
    """Rows straight into the table, to make long lists without thousands of requests."""
    ctx = app.state.ctx
    now = ctx.clock.now()
    async with ctx.db.write_sessions() as session, session.begin():
        session.add_all(
            Source(
                team_id=team_id,
                name=f"{prefix} {i}",
                platform="http",
                table_name=f"t{team_id}_{prefix}_{i}",
                token_hash=hash_token(f"{prefix}-{team_id}-{i}"),
                token_encrypted=ctx.box.encrypt(f"{prefix}-{team_id}-{i}"),
                ingesting_paused=False,
                logs_retention=30,
                metrics_retention=30,
                live_tail_pattern="{message}",
                created_at=now,
                updated_at=now,
            )
            for i in range(count)
        )


def query(url: str | None) -> dict[str, str]:
    assert url is not None
    return dict(parse_qsl(urlsplit(url).query))


async def page(api: Api, params: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    response = await api.get(SOURCES, params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    return body["data"], body["pagination"]


async def test_empty_list(api: Api) -> None:
    items, pagination = await page(api, {})
    assert items == []
    assert query(pagination["first"]) == {"page": "1", "per_page": "50"}
    assert query(pagination["last"]) == {"page": "1", "per_page": "50"}
    assert pagination["prev"] is None and pagination["next"] is None


async def test_pages_in_id_order_with_links_keeping_other_params(api: Api) -> None:
    created = [
        data(await api.post(SOURCES, {"name": f"s{i}", "platform": "http"}), 201) for i in range(5)
    ]
    seen: list[dict[str, Any]] = []
    for number in (1, 2, 3):
        items, pagination = await page(api, {"per_page": 2, "page": number, "filter": "x y"})
        seen += items
        assert urlsplit(pagination["first"]).path == SOURCES
        assert query(pagination["first"]) == {"filter": "x y", "page": "1", "per_page": "2"}
        assert query(pagination["last"]) == {"filter": "x y", "page": "3", "per_page": "2"}
        if number == 1:
            assert pagination["prev"] is None
        else:
            assert query(pagination["prev"])["page"] == str(number - 1)
        if number == 3:
            assert pagination["next"] is None
        else:
            assert query(pagination["next"])["page"] == str(number + 1)
    assert seen == created
    assert [int(item["id"]) for item in seen] == sorted(int(item["id"]) for item in seen)


async def test_listed_items_have_the_full_shape(api: Api) -> None:
    created = data(await api.post(SOURCES, {"name": "one", "platform": "docker"}), 201)
    items, _ = await page(api, {})
    assert items == [created]


async def test_per_page_is_clamped_to_250(api: Api, app: FastAPI) -> None:
    await insert_sources(app, api.team_id, 251)
    items, pagination = await page(api, {"per_page": 1000})
    assert len(items) == 250
    assert query(pagination["last"]) == {"page": "2", "per_page": "250"}
    items, pagination = await page(api, {"per_page": 1000, "page": 2})
    assert len(items) == 1 and items[0]["attributes"]["name"] == "bulk 250"
    assert pagination["next"] is None


async def test_a_page_past_the_end_is_empty(api: Api, app: FastAPI) -> None:
    await insert_sources(app, api.team_id, 3)
    items, pagination = await page(api, {"page": 9})
    assert items == []
    assert pagination["next"] is None
    assert query(pagination["prev"])["page"] == "1"


async def test_bad_paging_parameters(api: Api) -> None:
    _, invalid = errors(await api.get(SOURCES, params={"page": "0", "per_page": "x"}))
    assert invalid == ["page", "per_page"]


async def test_only_the_callers_sources(api: Api, other_api: Api, app: FastAPI) -> None:
    await insert_sources(app, other_api.team_id, 3)
    mine = data(await api.post(SOURCES, {"name": "mine", "platform": "http"}), 201)
    items, _ = await page(api, {})
    assert items == [mine]
    theirs, _ = await page(other_api, {})
    assert len(theirs) == 3
    assert {item["attributes"]["team_name"] for item in theirs} == {"globex"}


@contextmanager
def counted_statements(app: FastAPI) -> Iterator[list[str]]:
    statements: list[str] = []
    engine = app.state.ctx.db.engine.sync_engine

    def record(*args: Any) -> None:
        statements.append(str(args[2]))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_query_count_does_not_grow_with_the_page(api: Api, app: FastAPI) -> None:
    await insert_sources(app, api.team_id, 250)
    group = data(await api.post("/api/v1/source-groups", {"name": "g"}), 201)
    with counted_statements(app) as small:
        await page(api, {"per_page": 1})
    with counted_statements(app) as full:
        items, _ = await page(api, {"per_page": 250})
    assert len(items) == 250
    assert len(full) == len(small)
    selects = [sql for sql in full if sql.lstrip().upper().startswith("SELECT")]
    assert len(selects) <= 3  # the token's team, the count, the page
    path = f"/api/v1/source-groups/{group['id']}/sources"
    with counted_statements(app) as grouped:
        assert (await api.get(path, params={"per_page": 250})).status_code == 200
    assert len([sql for sql in grouped if sql.lstrip().upper().startswith("SELECT")]) <= 4
