"""The monitor page's "Checked from": each location's latest result and status, the rule in
words, a location not counted marked so, the Degraded badge (the overview's row too); a monitor only the server
checks says so in one line."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from tests.console.test_details_pages import signed
from tests.console.test_locations_pages import add_location
from tests.factories.api import Api
from tests.factories.monitors import create_monitor
from watchpost.clock import FrozenClock
from watchpost.locations.models import Location, LocationCheck
from watchpost.monitors import placement
from watchpost.monitors.models import Monitor


async def test_two_locations_results_and_the_rule(
    app: FastAPI, client: httpx.AsyncClient, api: Api, clock: FrozenClock
) -> None:
    now = clock.now()
    eu = await add_location(app, "eu-west", private=True, last_seen_at=now)
    us = await add_location(app, "us-east", private=True, region="us", last_seen_at=now)
    await add_location(app, "ap-south", private=True, region="as", offline_since=now)
    monitor = await create_monitor(
        api,
        locations=["eu-west", "us-east", "ap-south"],
        confirmation_rule="at_least",
        confirmation_locations=2,
    )
    monitor_id = int(monitor["id"])
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        await placement.place_all(session, now=now)
        for location_id, ok, error, ms in (
            (eu, True, None, 42.4),
            (us, False, "connection refused", 3.0),
        ):
            await session.execute(
                update(LocationCheck)
                .where(
                    LocationCheck.monitor_id == monitor_id,
                    LocationCheck.location_id == location_id,
                )
                .values(
                    last_checked_at=now - timedelta(minutes=2),
                    last_ok=ok,
                    last_error=error,
                    last_latency_ms=ms,
                )
            )
        await session.execute(
            update(Monitor)
            .where(Monitor.id == monitor_id)
            .values(status="up", degraded_since=now - timedelta(minutes=1))
        )
    await signed(app, client, "viewer")
    page = await client.get(f"/monitors/{monitor_id}")
    assert page.status_code == 200
    text = page.text
    assert "Checked from" in text and "Down when at least 2 locations fail" in text
    section = text[text.index('id="locations"') :]
    section = section[: section.index("</table>")]
    rows = section.split("<tr>")[2:]
    names = [re.search(r'<td class="name">([a-z-]+)', row) for row in rows]
    assert [found.group(1) for found in names if found] == [
        "local",  # shared, in the monitor's regions (all by default)
        "ap-south",
        "eu-west",
        "us-east",
    ]
    local, ap_south, eu_west, us_east = rows
    assert "(this server)" in local and "No result yet" in local
    assert "No result yet" in ap_south and "Offline" in ap_south and "not counted" in ap_south
    assert "state-up" in eu_west and "42 ms" in eu_west and "2 min" in eu_west
    assert "Online" in eu_west and "not counted" not in eu_west
    assert "state-down" in us_east and "connection refused" in us_east and "3 ms" in us_east
    assert 'class="state state-degraded">Degraded' in text
    overview = (await client.get("/")).text
    row = overview[overview.index(f'href="/monitors/{monitor_id}"') :]
    assert 'class="state state-degraded">Degraded' in row[: row.index("</tr>")]


async def test_a_monitor_only_the_server_checks(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    monitor_id = int((await create_monitor(api))["id"])
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await session.execute(update(Location).where(Location.is_server).values(name="home"))
    await signed(app, client, "viewer")
    page = await client.get(f"/monitors/{monitor_id}")
    assert "Checked from this server (home)." in page.text
    assert "Location status" not in page.text and "Degraded" not in page.text
