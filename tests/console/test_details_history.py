"""A heartbeat's page shows its history as a state timeline over HTTP: the chart of the
range in the URL (24 hours unless `?range=` names another), the range tabs as links, the
legend's words, and a heartbeat never watched says it has no data."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

import httpx
from fastapi import FastAPI

from tests.console.test_details_pages import signed
from tests.factories.api import Api
from tests.factories.heartbeats import create_heartbeat
from watchpost.clock import FrozenClock
from watchpost.history import service as history


async def record_states(
    app: FastAPI, *, team_id: int, heartbeat_id: int, start: datetime, states: Sequence[str]
) -> None:
    """One observation an hour from `start`, as the engine's heartbeat sweep records them
    ("none": none that hour, as while paused), each standing for its hour."""
    observations = [
        history.Observation(
            team_id=team_id,
            subject_type="heartbeat",
            subject_id=heartbeat_id,
            at=start + timedelta(hours=k),
            state=state,  # type: ignore[arg-type]
            valid_for_s=3600,
        )
        for k, state in enumerate(states)
        if state != "none"
    ]
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await history.record(session, observations)


def chart_of(page: str) -> str:
    (svg,) = re.findall(r'<svg [^>]*aria-label="History, [^"]*".*?</svg>', page, re.S)
    return str(svg)


def current_tab(page: str) -> str:
    (label,) = re.findall(r'<a href="[^"]*#history" aria-current="true">([^<]+)</a>', page)
    return str(label)


async def test_the_heartbeat_page_charts_its_history_for_each_range(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api, name="nightly backup")
    # 40 hours: up, in maintenance 30 hours before the page, down 3 hours before it,
    # and not watched (paused) 10 hours before it
    states = ["up"] * 40
    states[40 - 30], states[40 - 3], states[40 - 10] = "maintenance", "down", "none"
    start = clock.now()
    await record_states(app, team_id=api.team_id, heartbeat_id=made.id, start=start, states=states)
    clock.set(start + timedelta(hours=40, minutes=30))
    await signed(app, client, "viewer")

    page = await client.get(f"/heartbeats/{made.id}")
    assert page.status_code == 200
    text = page.text
    assert '<h2 id="history">History</h2>' in text
    assert current_tab(text) == "24 hours"
    for key in ("24h", "7d", "30d"):
        assert f'href="/heartbeats/{made.id}?range={key}#history"' in text
    day = chart_of(text)
    assert 'role="img"' in day and 'aria-label="History, last 24 hours"' in day
    assert "chart-state-down" in day and "chart-state-none" in day
    assert "chart-state-maintenance" not in day  # 30 hours ago
    assert "Down, " in day and "UTC: down 1 h" in day
    assert "<desc>" in day and "down 1 h, in 1 of 25 periods" in day
    legend = text.split('class="chart-legend"')[1].split("</ul>")[0]
    assert [w in legend for w in ("Up", "Down", "Maintenance", "No data")] == [True] * 4

    for key, name in (("7d", "7 days"), ("30d", "30 days")):
        shown = (await client.get(f"/heartbeats/{made.id}?range={key}")).text
        assert current_tab(shown) == name
        chart = chart_of(shown)
        assert f'aria-label="History, last {name}"' in chart
        assert "chart-state-maintenance" in chart and "chart-state-down" in chart

    for unknown in ("1y", "", "<b>"):
        shown = (await client.get(f"/heartbeats/{made.id}", params={"range": unknown})).text
        assert current_tab(shown) == "24 hours"
        assert chart_of(shown) == day


async def test_a_heartbeat_never_watched_has_no_data(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    made = await create_heartbeat(api, name="new job")
    await signed(app, client, "viewer")
    chart = chart_of((await client.get(f"/heartbeats/{made.id}?range=7d")).text)
    assert 'aria-label="History, last 7 days: no data in this period"' in chart
    assert "No data in this period</text>" in chart
