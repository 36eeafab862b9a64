"""A monitor's and a heartbeat's availability over a period (the hosted API's /sla and
/availability), counted from their incidents, and a monitor's recent response times."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.heartbeats import create_heartbeat
from tests.factories.history import obs, write
from tests.factories.hostile_times import HOSTILE_TIMES
from tests.factories.incidents import create_reported_incident
from tests.factories.monitors import create_monitor
from watchpost.clock import FrozenClock

HOUR = 3600.0


async def _incident(api: Api, clock: FrozenClock, **about: int) -> str:
    found = await create_reported_incident(api, email=False, **about)
    return str(found["id"])


async def test_a_monitors_sla_counts_its_incidents_within_the_period(
    api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor(api)  # 2026-01-01 00:00
    mid = int(monitor["id"])
    clock.advance(HOUR)
    first = await _incident(api, clock, monitor_id=mid)
    clock.advance(2 * HOUR)
    await api.post(f"/api/v2/incidents/{first}/resolve", {})  # 01:00-03:00
    clock.advance(20 * HOUR)
    await _incident(api, clock, monitor_id=mid)  # open since 23:00
    clock.advance(HOUR)  # now: 2026-01-02 00:00
    sla = data(await api.get(f"/api/v2/monitors/{mid}/sla"))
    assert sla["type"] == "monitor_sla" and sla["id"] == str(mid)
    assert sla["attributes"] == {
        "availability": round(100 * (1 - 3 * HOUR / (24 * HOUR)), 4),
        "total_downtime": 10_800,
        "number_of_incidents": 2,
        "longest_incident": 7200,
        "average_incident": 5400,
    }
    # A period clips the incidents to it: 02:00-03:00 of the first only.
    part = data(
        await api.get(
            f"/api/v2/monitors/{mid}/sla?from=2026-01-01T02:00:00Z&to=2026-01-01T12:00:00Z"
        )
    )["attributes"]
    assert part["total_downtime"] == 3600 and part["number_of_incidents"] == 1
    whole_day = data(await api.get(f"/api/v2/monitors/{mid}/sla?from=2026-01-01&to=2026-01-01"))
    assert whole_day["attributes"]["total_downtime"] == 10_800
    quiet = data(
        await api.get(
            f"/api/v2/monitors/{mid}/sla?from=2026-01-01T05:00:00Z&to=2026-01-01T06:00:00Z"
        )
    )
    assert quiet["attributes"]["availability"] == 100.0
    assert quiet["attributes"]["number_of_incidents"] == 0


async def test_a_bad_period_is_a_400_and_others_objects_are_404(api: Api, app: FastAPI) -> None:
    monitor = await create_monitor(api)
    path = f"/api/v2/monitors/{monitor['id']}/sla"
    for query in ("from=2027-01-01", "from=2026-01-01&to=2025-12-31", "from=yesterday"):
        response = await api.get(f"{path}?{query}")
        assert response.status_code == 400, query
        assert response.json()["errors"][0].startswith("The data range is invalid")
    assert (await api.get("/api/v2/monitors/999/sla")).status_code == 404
    assert (await api.get("/api/v2/heartbeats/999/availability")).status_code == 404


@pytest.mark.parametrize("value", [*HOSTILE_TIMES, "9999-12-31"])
@pytest.mark.parametrize("name", ["from", "to"])
async def test_a_time_that_cannot_be_read_or_held_is_a_400_naming_it(
    api: Api, name: str, value: str
) -> None:
    monitor = await create_monitor(api)
    heartbeat = await create_heartbeat(api)
    paths = (
        f"/api/v2/monitors/{monitor['id']}/sla",
        f"/api/v2/heartbeats/{heartbeat.id}/availability",
    )
    for path in paths:
        response = await api.get(f"{path}?{urlencode({name: value})}")
        body = response.json()
        assert body["invalid_attributes"] == [name]
        if len(value) > 40:  # longer than the parameter may be: the query's own 422
            assert response.status_code == 422
            assert body["errors"] == [f"{name} must have at most 40 characters"]
        else:
            assert response.status_code == 400, (value, response.text[:200])
            assert body["errors"][0].startswith("The data range is invalid")


async def test_bounds_far_away_are_the_whole_life_of_the_object(api: Api) -> None:
    monitor = await create_monitor(api)
    path = f"/api/v2/monitors/{monitor['id']}/sla"
    for query in (
        "from=0001-01-01",
        "from=1900-01-01T00:00:00z&to=9999-12-30",
        "to=9000-01-01 UTC",
    ):
        answer = data(await api.get(f"{path}?{query}"))
        assert answer["attributes"]["availability"] == 100.0, query


async def test_a_heartbeats_availability(api: Api, clock: FrozenClock) -> None:
    heartbeat = await create_heartbeat(api)
    clock.advance(HOUR)
    found = await _incident(api, clock, heartbeat_id=heartbeat.id)
    clock.advance(HOUR)
    await api.post(f"/api/v2/incidents/{found}/resolve", {})
    clock.advance(2 * HOUR)
    answer = data(await api.get(f"/api/v2/heartbeats/{heartbeat.id}/availability"))
    assert answer["type"] == "heartbeat_availability"
    assert answer["attributes"]["availability"] == 75.0
    assert answer["attributes"]["total_downtime"] == 3600


async def test_a_monitors_response_times_of_the_last_day(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor(api)
    mid = int(monitor["id"])
    empty = data(await api.get(f"/api/v2/monitors/{mid}/response-times"))
    assert empty["type"] == "monitor_response_times" and empty["attributes"] == {"regions": []}
    start = clock.now()
    await write(
        app,
        [
            obs(api.team_id, start, latency_ms=120.5, subject_id=mid),
            obs(api.team_id, start.replace(hour=6), latency_ms=80, subject_id=mid),
            obs(api.team_id, start.replace(hour=7), "down", subject_id=mid),  # no latency
        ],
    )
    clock.advance(25 * HOUR)  # the first is older than a day now
    answer = data(await api.get(f"/api/v2/monitors/{mid}/response-times"))
    [region] = answer["attributes"]["regions"]
    assert (region["region"], region["location"]) == ("us", "local")  # the server's own
    assert region["response_times"] == [{"at": "2026-01-01T06:00:00.000Z", "response_time": 0.08}]
