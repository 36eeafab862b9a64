"""Status page resources read status, availability and status_history from recorded data."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.history import at, obs, write
from watchpost.clock import FrozenClock
from watchpost.history.service import Observation, SubjectType
from watchpost.incidents.models import Incident

PAGES = "/api/v2/status-pages"


async def monitor(api: Api, **attributes: Any) -> int:
    body = {"url": "https://example.com", **attributes}
    return int(data(await api.post("/api/v2/monitors", body), 201)["id"])


async def page_with(api: Api, resource: dict[str, Any], **page: Any) -> str:
    body = {"subdomain": "acme", "history": 7, **page}
    page_id = str(data(await api.post(PAGES, body), 201)["id"])
    created = data(await api.post(f"{PAGES}/{page_id}/resources", resource), 201)
    return f"{PAGES}/{page_id}/resources/{created['id']}"


async def read(api: Api, path: str) -> dict[str, Any]:
    attributes: dict[str, Any] = data(await api.get(path))["attributes"]
    return attributes


def checks(
    team_id: int,
    subject_id: int,
    start: datetime,
    end: datetime,
    state: str = "up",
    *,
    subject_type: SubjectType = "monitor",
) -> list[Observation]:
    """A check every 5 minutes in [start, end], each standing for 10 minutes."""
    count = int((end - start).total_seconds() // 300) + 1
    return [
        obs(
            team_id,
            start + timedelta(minutes=5 * n),
            state,  # type: ignore[arg-type]
            subject_id=subject_id,
            subject_type=subject_type,
            valid_for_s=600,
        )
        for n in range(count)
    ]


async def incident(
    app: FastAPI,
    team_id: int,
    start: datetime,
    end: datetime | None,
    *,
    metadata: dict[str, Any] | None = None,
    **subject: int,
) -> None:
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        session.add(
            Incident(
                team_id=team_id,
                name="Down",
                cause="timeout",
                started_at=start,
                resolved_at=end,
                metadata_=metadata or {},
                created_at=start,
                updated_at=start,
                **subject,
            )
        )


def statuses(attrs: dict[str, Any]) -> list[str]:
    return [day["status"] for day in attrs["status_history"]]


async def test_monitor_history_comes_from_recorded_checks(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    mid = await monitor(api)
    path = await page_with(api, {"resource_type": "Monitor", "resource_id": str(mid)})
    await write(app, checks(api.team_id, mid, at(2), at(3, 12)))
    await incident(app, api.team_id, at(2, 6), at(2, 7), monitor_id=mid)
    clock.set(at(3, 12))
    attrs = await read(api, path)
    assert attrs["status"] == "operational"
    assert statuses(attrs) == ["not_monitored"] * 5 + ["downtime", "operational"]
    assert attrs["status_history"][5] == {
        "day": "2026-01-02",
        "status": "downtime",
        "downtime_duration": 3600,
        "maintenance_duration": 0,
    }
    # over observed time only: 36 h observed, 1 h down
    assert attrs["availability"] == round(1 - 1 / 36, 6)


async def test_a_day_without_data_is_never_perfect(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    mid = await monitor(api)
    path = await page_with(api, {"resource_type": "Monitor", "resource_id": str(mid)})
    # the checker ran on the 1st and again from the 3rd; nothing at all on the 2nd
    await write(app, checks(api.team_id, mid, at(1), at(1, 23, 50)))  # stands to midnight
    await write(app, checks(api.team_id, mid, at(3), at(3, 12)))
    clock.set(at(3, 12))
    attrs = await read(api, path)
    gap = attrs["status_history"][5]
    assert gap == {
        "day": "2026-01-02",
        "status": "not_monitored",
        "downtime_duration": 0,
        "maintenance_duration": 0,
    }
    assert statuses(attrs)[-3:] == ["operational", "not_monitored", "operational"]
    # the checker stops: an hour later nothing stands, so the item is not monitored now
    clock.set(at(3, 13))
    later = await read(api, path)
    assert later["status"] == "not_monitored"
    page = data(await api.get(path.rsplit("/resources", 1)[0]))["attributes"]
    assert page["aggregate_state"] == "operational"  # not_monitored resources are ignored


async def test_nothing_recorded_claims_nothing(api: Api, clock: FrozenClock) -> None:
    mid = await monitor(api)
    path = await page_with(api, {"resource_type": "Monitor", "resource_id": str(mid)})
    clock.set(at(3))
    attrs = await read(api, path)
    assert attrs["availability"] == 1.0
    assert statuses(attrs) == ["not_monitored"] * 7


async def test_open_incident_is_downtime_now(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    mid = await monitor(api)
    path = await page_with(api, {"resource_type": "Monitor", "resource_id": str(mid)})
    await write(app, checks(api.team_id, mid, at(3), at(3, 2)))
    await write(app, checks(api.team_id, mid, at(3, 2, 5), at(3, 4), "down"))
    await incident(app, api.team_id, at(3, 2, 5), None, monitor_id=mid)
    clock.set(at(3, 4))
    attrs = await read(api, path)
    assert attrs["status"] == "downtime"
    assert attrs["status_history"][-1]["downtime_duration"] == 3600 + 55 * 60
    page = data(await api.get(path.rsplit("/resources", 1)[0]))["attributes"]
    assert page["aggregate_state"] == "downtime"


async def test_maintenance_is_shown_and_not_counted(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    mid = await monitor(api)
    path = await page_with(api, {"resource_type": "Monitor", "resource_id": str(mid)})
    await write(app, checks(api.team_id, mid, at(3), at(3, 2)))
    await write(app, checks(api.team_id, mid, at(3, 2, 5), at(3, 4), "maintenance"))
    clock.set(at(3, 4))
    attrs = await read(api, path)
    assert attrs["status"] == "maintenance"
    assert attrs["status_history"][-1]["status"] == "maintenance"
    assert attrs["status_history"][-1]["maintenance_duration"] == 3600 + 55 * 60
    assert attrs["availability"] == 1.0


RULE = {"key": "team", "values": [{"value": "payments"}]}
OTHER_RULE = {"key": "team", "values": [{"value": "search"}]}


@pytest.mark.parametrize(
    ("marking", "status", "downtime"),
    [
        ({}, "downtime", 3600),  # mark_as_down_for defaults to any_incident
        ({"mark_as_down_for": "any_incident"}, "downtime", 3600),
        ({"mark_as_down_for": "no_incident"}, "operational", 0),
        (
            {"mark_as_down_for": "incident_matching_metadata", "mark_as_down_metadata_rule": RULE},
            "downtime",
            3600,
        ),
        (
            {
                "mark_as_down_for": "incident_matching_metadata",
                "mark_as_down_metadata_rule": OTHER_RULE,
            },
            "operational",
            0,
        ),
        (
            {"mark_as_down_for": "no_incident", "mark_as_degraded_for": "any_incident"},
            "degraded",
            0,
        ),
        (
            {
                "mark_as_down_for": "no_incident",
                "mark_as_degraded_for": "incident_matching_metadata",
                "mark_as_degraded_metadata_rule": RULE,
            },
            "degraded",
            0,
        ),
    ],
)
async def test_incidents_count_as_the_resource_says(
    app: FastAPI,
    api: Api,
    clock: FrozenClock,
    marking: dict[str, Any],
    status: str,
    downtime: int,
) -> None:
    mid = await monitor(api)
    resource = {"resource_type": "Monitor", "resource_id": str(mid), **marking}
    path = await page_with(api, resource)
    await write(app, checks(api.team_id, mid, at(3), at(3, 12)))
    metadata = {"team": ["payments"]}
    await incident(app, api.team_id, at(3, 1), at(3, 2), metadata=metadata, monitor_id=mid)
    clock.set(at(3, 12))
    today = (await read(api, path))["status_history"][-1]
    assert (today["status"], today["downtime_duration"]) == (status, downtime)


async def test_days_in_a_half_hour_time_zone_are_built_from_hours(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    mid = await monitor(api)
    resource = {"resource_type": "Monitor", "resource_id": str(mid)}
    path = await page_with(api, resource, timezone="Asia/Kolkata")
    await write(app, checks(api.team_id, mid, at(2), at(3, 12)))
    # 20:00-21:00 UTC on the 2nd is 01:30-02:30 on the 3rd in Kolkata (UTC+05:30)
    await incident(app, api.team_id, at(2, 20), at(2, 21), monitor_id=mid)
    clock.set(at(3, 12))
    days = (await read(api, path))["status_history"]
    assert [d["day"] for d in days[-2:]] == ["2026-01-02", "2026-01-03"]
    assert [d["status"] for d in days[-2:]] == ["operational", "downtime"]
    assert days[-1]["downtime_duration"] == 3600


async def test_monitor_group_aggregates_its_members(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    group = int(data(await api.post("/api/v2/monitor-groups", {"name": "Web"}), 201)["id"])
    steady = await monitor(api, monitor_group_id=group)
    shaky = await monitor(api, monitor_group_id=group)
    path = await page_with(api, {"resource_type": "MonitorGroup", "resource_id": str(group)})
    await write(app, checks(api.team_id, steady, at(2), at(3, 12)))
    await write(app, checks(api.team_id, shaky, at(3), at(3, 12)))
    await incident(app, api.team_id, at(3, 6), None, monitor_id=shaky)
    clock.set(at(3, 12))
    attrs = await read(api, path)
    assert attrs["status"] == "downtime"
    assert statuses(attrs)[-2:] == ["operational", "downtime"]
    assert attrs["status_history"][-1]["downtime_duration"] == 6 * 3600
    # weighted by observed time: 36 h + 12 h observed, 6 h down
    assert attrs["availability"] == round(1 - 6 / 48, 6)


async def test_heartbeat_history(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    body = {"name": "backup", "period": 3600, "grace": 300}
    hid = int(data(await api.post("/api/v2/heartbeats", body), 201)["id"])
    path = await page_with(api, {"resource_type": "Heartbeat", "resource_id": str(hid)})
    pings = [
        obs(api.team_id, at(3, h), subject_type="heartbeat", subject_id=hid, valid_for_s=3900)
        for h in range(12)
    ]
    await write(app, pings)
    clock.set(at(3, 12))
    attrs = await read(api, path)
    assert attrs["status"] == "operational"
    assert statuses(attrs)[-2:] == ["not_monitored", "operational"]
    assert attrs["availability"] == 1.0


async def test_incidents_shorter_than_min_incident_length_are_left_out(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    mid = await monitor(api)
    resource = {"resource_type": "Monitor", "resource_id": str(mid)}
    path = await page_with(api, resource, min_incident_length=600)
    await write(app, checks(api.team_id, mid, at(3), at(3, 12)))
    await incident(app, api.team_id, at(3, 1), at(3, 1, 5), monitor_id=mid)  # 5 minutes
    await incident(app, api.team_id, at(3, 2), at(3, 2, 20), monitor_id=mid)  # 20 minutes
    await incident(app, api.team_id, at(3, 11, 55), None, monitor_id=mid)  # open for 5 so far
    clock.set(at(3, 12))
    attrs = await read(api, path)
    assert attrs["status"] == "operational"
    assert attrs["status_history"][-1]["downtime_duration"] == 20 * 60
    clock.set(at(3, 12, 5))
    assert (await read(api, path))["status"] == "downtime"


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
async def test_incident_while_the_checker_was_stopped_is_not_downtime(
    app: FastAPI, api: Api, clock: FrozenClock, zone: str
) -> None:
    mid = await monitor(api)
    resource = {"resource_type": "Monitor", "resource_id": str(mid)}
    path = await page_with(api, resource, timezone=zone)
    # checks until 05:50 (standing to 06:00), then nothing until 09:00
    await write(app, checks(api.team_id, mid, at(3), at(3, 5, 50)))
    await write(app, checks(api.team_id, mid, at(3, 9), at(3, 12)))
    await incident(app, api.team_id, at(3, 5), at(3, 10), monitor_id=mid)
    clock.set(at(3, 12))
    attrs = await read(api, path)
    # down 05:00-06:00 and 09:00-10:00; 06:00-09:00 was not observed
    assert sum(day["downtime_duration"] for day in attrs["status_history"]) == 2 * 3600
    assert attrs["availability"] == round(1 - 2 / 9, 6)
