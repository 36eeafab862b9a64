"""A resource list computes only the days it shows, and says exactly what a single GET says.

List items carry the last 30 days of status_history; the days before them count in
`availability` as totals (summed by the database). These tests hold the list to the
single GET, which computes every day of the window one by one.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi import FastAPI
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.factories.api import Api, data
from tests.factories.history import obs, write
from tests.history.test_status_page_history import incident
from watchpost.clock import FrozenClock
from watchpost.history.service import Observation, State, SubjectType
from watchpost.status_pages.availability import (
    Cell,
    Incident,
    Marking,
    Record,
    summarize,
    summarize_in,
)
from watchpost.status_pages.limits import LIST_HISTORY_DAYS
from watchpost.status_pages.windows import make_window

PAGES = "/api/v2/status-pages"
NOW = datetime(2026, 4, 10, 15, 20, tzinfo=UTC)
ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/London"]


def day(month: int, d: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(2026, month, d, hour, minute, tzinfo=UTC)


def checks(
    team_id: int,
    subject_id: int,
    start: datetime,
    end: datetime,
    state: State = "up",
    *,
    every: int = 20,
    subject_type: SubjectType = "monitor",
) -> list[Observation]:
    """A check every `every` minutes in [start, end], each standing for 1.5 times that."""
    count = int((end - start).total_seconds() // (every * 60)) + 1
    return [
        obs(
            team_id,
            start + timedelta(minutes=every * n),
            state,
            subject_id=subject_id,
            subject_type=subject_type,
            valid_for_s=every * 90,
        )
        for n in range(count)
    ]


async def items(api: Api, path: str) -> list[dict[str, Any]]:
    response = await api.get(path)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["data"]
    return found


async def created(api: Api, path: str, body: dict[str, Any]) -> int:
    return int(data(await api.post(path, body), 201)["id"])


async def seed(app: FastAPI, api: Api, clock: FrozenClock) -> list[dict[str, Any]]:
    """Monitors, a group, a heartbeat and a manual item with data in the shown days and
    before them: maintenance, incidents across local midnights and a DST change, incidents
    while nothing was observed, days without data, an open incident, a standing span
    crossing into the shown days."""
    team = api.team_id
    group = await created(api, "/api/v2/monitor-groups", {"name": "Shop"})
    first = await created(
        api, "/api/v2/monitors", {"url": "https://a.example", "monitor_group_id": group}
    )
    second = await created(
        api, "/api/v2/monitors", {"url": "https://b.example", "monitor_group_id": group}
    )
    beat = await created(api, "/api/v2/heartbeats", {"name": "Backup", "period": 3600})
    await write(app, checks(team, first, day(1, 14, 7), day(1, 25, 3)))
    await write(app, checks(team, first, day(2, 2, 13, 10), day(2, 3, 1), "down"))
    await write(app, checks(team, first, day(3, 6), day(3, 7, 21, 40)))
    await write(app, checks(team, first, day(3, 7, 22), day(3, 8, 9), "maintenance"))
    await write(app, checks(team, first, day(3, 8, 9, 20), day(3, 16, 4)))
    await write(app, checks(team, first, day(4, 8), day(4, 10, 15, 20)))
    await write(app, checks(team, second, day(1, 20, 18), day(1, 22, 6), every=45))
    await write(app, checks(team, second, day(3, 10), day(3, 13, 2), "down", every=45))
    pings = [day(1, 19, 5, 30), day(2, 20, 2, 15), day(3, 9, 23, 50)]
    await write(
        app,
        [
            obs(team, at, subject_id=beat, subject_type="heartbeat", valid_for_s=5 * 86400)
            for at in pings
        ],
    )
    for start, end in [
        (day(1, 20, 22, 30), day(1, 21, 3, 15)),  # across local midnights
        (day(2, 2, 13), day(2, 2, 20)),  # partly observed
        (day(2, 10, 4), day(2, 10, 9)),  # nothing observed: not downtime
        (day(3, 7, 23), day(3, 8, 8, 30)),  # in maintenance, across the US DST change
        (day(3, 11, 20), day(3, 12, 9)),  # across the first shown day of some zones
        (day(4, 10, 14), None),  # open
    ]:
        await incident(app, team, start, end, monitor_id=first)
    await incident(app, team, day(3, 11, 1), day(3, 13), monitor_id=second)
    await incident(app, team, day(2, 21), day(2, 22, 4), heartbeat_id=beat)
    clock.set(day(2, 1, 9, 30))
    manual = {"resource_type": "ManuallyTrackedItem", "public_name": "Support desk"}
    return [
        {"resource_type": "Monitor", "resource_id": first},
        {"resource_type": "Monitor", "resource_id": first, "mark_as_down_for": "no_incident"},
        {
            "resource_type": "Monitor",
            "resource_id": second,
            "mark_as_down_for": "no_incident",
            "mark_as_degraded_for": "any_incident",
        },
        {"resource_type": "MonitorGroup", "resource_id": group},
        {"resource_type": "Heartbeat", "resource_id": beat},
        manual,
    ]


@pytest.mark.parametrize("timezone", ZONES)
async def test_list_items_equal_the_single_get(
    app: FastAPI, api: Api, clock: FrozenClock, timezone: str
) -> None:
    resources = await seed(app, api, clock)
    body = {"subdomain": "acme", "history": 90, "timezone": timezone}
    page = await created(api, PAGES, body)
    for resource in resources:
        await created(api, f"{PAGES}/{page}/resources", resource)
    clock.set(NOW)
    listed = await items(api, f"{PAGES}/{page}/resources?per_page=50")
    assert len(listed) == len(resources)
    downtime_before_shown = False
    for item in listed:
        one = data(await api.get(f"{PAGES}/{page}/resources/{item['id']}"))["attributes"]
        attrs = item["attributes"]
        assert len(one["status_history"]) == 90
        assert attrs["status_history"] == one["status_history"][-LIST_HISTORY_DAYS:]
        assert (attrs["availability"], attrs["status"]) == (one["availability"], one["status"])
        earlier = one["status_history"][:-LIST_HISTORY_DAYS]
        downtime_before_shown |= any(d["downtime_duration"] for d in earlier)
        assert 0 <= attrs["availability"] <= 1
    # the data reaches back before the shown days, so the totals were exercised there
    assert downtime_before_shown


async def test_a_short_page_lists_every_day(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    resources = await seed(app, api, clock)
    page = await created(api, PAGES, {"subdomain": "short", "history": 7})
    await created(api, f"{PAGES}/{page}/resources", resources[0])
    clock.set(NOW)
    (item,) = await items(api, f"{PAGES}/{page}/resources")
    assert len(item["attributes"]["status_history"]) == 7


# ------------------------------------------------------------- the arithmetic alone

BASE = datetime(2026, 3, 1, tzinfo=UTC)
offsets = st.integers(0, 50 * 86400)


@st.composite
def cells(draw: st.DrawFn) -> Cell:
    start = BASE + timedelta(seconds=draw(offsets))
    if draw(st.booleans()):  # an hourly rollup
        start = start.replace(minute=0, second=0)
        length = 3600
    else:  # a standing span or a long manual item
        length = draw(st.integers(1, 20 * 86400))
    observed = draw(st.integers(0, length))
    maintenance = draw(st.integers(0, observed))
    return Cell(start, start + timedelta(seconds=length), observed, maintenance)


@st.composite
def incidents(draw: st.DrawFn) -> Incident:
    start = BASE + timedelta(seconds=draw(offsets))
    end = (
        None if draw(st.booleans()) else start + timedelta(seconds=draw(st.integers(1, 9 * 86400)))
    )
    return Incident(start, end, {"team": (draw(st.sampled_from(["a", "b"])),)})


markings = st.sampled_from(
    [
        Marking(),
        Marking(down_for="no_incident", degraded_for="any_incident"),
        Marking(
            down_for="incident_matching_metadata",
            down_rule=("team", frozenset({"a"})),
            degraded_for="any_incident",
        ),
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    cells=st.lists(cells(), max_size=12),
    incidents=st.lists(incidents(), max_size=5),
    marking=markings,
    timezone=st.sampled_from(ZONES),
    days=st.integers(1, 45),
    shown=st.integers(1, 45),
    now=st.integers(20 * 86400, 52 * 86400),
)
def test_totals_equal_the_day_by_day_sums(
    cells: list[Cell],
    incidents: list[Incident],
    marking: Marking,
    timezone: str,
    days: int,
    shown: int,
    now: int,
) -> None:
    at = BASE + timedelta(seconds=now)
    cells = [c for c in cells if c.start < at]
    cells = [Cell(c.start, min(c.end, at), c.observed, c.maintenance) for c in cells]
    cells = [c for c in cells if c.observed <= (c.end - c.start).total_seconds()]
    record = Record(cells=cells, incidents=incidents, observed_now=True)
    tz = ZoneInfo(timezone)
    every_day = summarize(record, marking, now=at, days=days, tz=tz)
    window = make_window(now=at, days=days, tz=tz, shown=shown)
    some_days = summarize_in(record, marking, window)
    assert some_days.status_history == every_day.status_history[-window.shown :]
    assert some_days.availability == every_day.availability
    assert some_days.status == every_day.status
    assert some_days.counted_s == pytest.approx(every_day.counted_s, abs=1e-6)
    assert some_days.down_s == pytest.approx(every_day.down_s, abs=1e-6)
