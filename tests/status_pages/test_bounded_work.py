"""Bounded work per object: what one status page holds, what one list response carries, and
the per-object lists a request may send."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, insert, select

from tests.factories.api import Api, data, errors
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.status_pages.limits import LIST_HISTORY_DAYS, MAX_RESOURCES, MAX_SECTIONS
from watchpost.status_pages.models import StatusPageResource, StatusPageSection

PAGES = "/api/v2/status-pages"
LIST_SIZE_BOUND = 1_000_000  # bytes: 250 items of a 365-day page built ≈ 8 MB before


async def new_page(api: Api, **attributes: Any) -> int:
    body = {"subdomain": "acme", **attributes}
    return int(data(await api.post(PAGES, body), 201)["id"])


async def add_resources(app: FastAPI, api: Api, page_id: int, count: int, age_days: int) -> None:
    """count manually tracked resources in one new section, created age_days ago: rows
    written straight to the database (the API would take a request for each)."""
    ctx: AppContext = app.state.ctx
    created = ctx.clock.now() - timedelta(days=age_days)
    stamps = {"created_at": created, "updated_at": created}
    async with ctx.db.write_sessions() as db, db.begin():
        section_id = await db.scalar(
            insert(StatusPageSection)
            .values(team_id=api.team_id, status_page_id=page_id, name="", position=0, **stamps)
            .returning(StatusPageSection.id)
        )
        rows = [
            {
                "team_id": api.team_id,
                "status_page_id": page_id,
                "status_page_section_id": section_id,
                "resource_type": "ManuallyTrackedItem",
                "public_name": f"service {n}",
                "explanation": "",
                "widget_type": "history",
                "position": n,
                "fixed_position": False,
                "mark_as_down_for": "any_incident",
                "mark_as_degraded_for": "no_incident",
                **stamps,
            }
            for n in range(count)
        ]
        await db.execute(insert(StatusPageResource), rows)


async def add_sections(app: FastAPI, api: Api, page_id: int, count: int) -> None:
    ctx: AppContext = app.state.ctx
    now = ctx.clock.now()
    async with ctx.db.write_sessions() as db, db.begin():
        await db.execute(
            insert(StatusPageSection),
            [
                {
                    "team_id": api.team_id,
                    "status_page_id": page_id,
                    "name": f"s{n}",
                    "position": n,
                    "created_at": now,
                    "updated_at": now,
                }
                for n in range(count)
            ],
        )


async def held(app: FastAPI, column: Any, page_id: int) -> int:
    ctx: AppContext = app.state.ctx
    async with ctx.db.read_sessions() as db:
        return int(await db.scalar(select(func.count()).where(column == page_id)) or 0)


# --------------------------------------------------------------------- status pages


async def test_a_status_page_holds_at_most_1000_resources(app: FastAPI, api: Api) -> None:
    page_id = await new_page(api)
    await add_resources(app, api, page_id, MAX_RESOURCES - 1, age_days=0)
    url = f"{PAGES}/{page_id}/resources"
    last = data(await api.post(url, {"public_name": "the thousandth"}), 201)
    assert last["attributes"]["position"] == MAX_RESOURCES - 1
    messages, fields = errors(await api.post(url, {"public_name": "one too many"}))
    assert messages == ["a status page holds at most 1,000 resources; this one is full"]
    assert fields == []
    assert await held(app, StatusPageResource.status_page_id, page_id) == MAX_RESOURCES
    # Room again once one is gone; another page of the team is not affected.
    assert (await api.delete(f"{url}/{last['id']}")).status_code == 204
    assert (await api.post(url, {"public_name": "again"})).status_code == 201
    other = await new_page(api, subdomain="acme-two")
    assert (await api.post(f"{PAGES}/{other}/resources", {})).status_code == 201


async def test_a_status_page_holds_at_most_1000_sections(app: FastAPI, api: Api) -> None:
    page_id = await new_page(api)
    await add_sections(app, api, page_id, MAX_SECTIONS - 1)
    url = f"{PAGES}/{page_id}/sections"
    assert (await api.post(url, {"name": "last"})).status_code == 201
    messages, _ = errors(await api.post(url, {"name": "one too many"}))
    assert messages == ["a status page holds at most 1,000 sections; this one is full"]
    assert await held(app, StatusPageSection.status_page_id, page_id) == MAX_SECTIONS


async def test_a_list_of_250_resources_of_a_year_stays_small(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    page_id = await new_page(api, history=365)
    await add_resources(app, api, page_id, 250, age_days=400)
    url = f"{PAGES}/{page_id}/resources"
    listed = await api.get(f"{url}?per_page=250")
    assert listed.status_code == 200
    items = listed.json()["data"]
    assert len(items) == 250
    assert len(listed.content) < LIST_SIZE_BOUND, len(listed.content)
    days = items[0]["attributes"]["status_history"]
    assert len(days) == LIST_HISTORY_DAYS
    assert days[-1]["day"] == clock.now().date().isoformat()  # the most recent days


async def test_the_single_get_keeps_the_whole_history(app: FastAPI, api: Api) -> None:
    page_id = await new_page(api, history=365)
    await add_resources(app, api, page_id, 2, age_days=100)
    url = f"{PAGES}/{page_id}/resources"
    listed = (await api.get(url)).json()["data"]
    for item in listed:
        one = data(await api.get(f"{url}/{item['id']}"))["attributes"]
        history = one["status_history"]
        assert len(history) == 365
        assert item["attributes"]["status_history"] == history[-LIST_HISTORY_DAYS:]
        # Everything else is the single GET's, availability over the whole year included.
        rest = {k: v for k, v in one.items() if k != "status_history"}
        assert {k: v for k, v in item["attributes"].items() if k != "status_history"} == rest
    assert {day["status"] for day in history[:-101]} == {"not_monitored"}


async def test_a_short_history_is_listed_whole(app: FastAPI, api: Api) -> None:
    page_id = await new_page(api, history=7)
    await add_resources(app, api, page_id, 1, age_days=30)
    (item,) = (await api.get(f"{PAGES}/{page_id}/resources")).json()["data"]
    assert len(item["attributes"]["status_history"]) == 7


# ------------------------------------------------------------ lists in request bodies


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v2/monitors", {"url": "https://example.com"}),
        ("/api/v2/heartbeats", {"name": "nightly"}),
    ],
)
@pytest.mark.parametrize(
    ("days", "message"),
    [
        (["mon", "mon"], "maintenance_days must not repeat a day"),
        (["mon"] * 10_000, "maintenance_days must have at most 7 items"),
    ],
)
async def test_maintenance_days_are_the_seven_days_at_most_once(
    api: Api, path: str, body: dict[str, Any], days: list[str], message: str
) -> None:
    window = {"maintenance_from": "01:00:00", "maintenance_to": "02:00:00"}
    messages, fields = errors(await api.post(path, {**body, **window, "maintenance_days": days}))
    assert fields == ["maintenance_days"]
    assert any(text.startswith(message) for text in messages), messages
    every = ["sun", "sat", "fri", "thu", "wed", "tue", "mon"]
    made = data(await api.post(path, {**body, **window, "maintenance_days": every}), 201)
    assert made["attributes"]["maintenance_days"] == every[::-1]
