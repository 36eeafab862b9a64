"""The overview's data: states and counts, filters, sorting and paging in the database, and
each shown row's sparkline and availability from recorded check results."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.heartbeats import create_heartbeat
from tests.factories.monitors import GROUPS, MONITORS, create_monitor
from tests.factories.objects import create_collector, create_target, target_body
from watchpost.clock import FrozenClock
from watchpost.collectors import checking as targets
from watchpost.collectors.models import CollectorTarget
from watchpost.console.overview_data import (
    OverviewFilter,
    Row,
    all_matching_ids,
    overview,
)
from watchpost.heartbeats.checking import observe_heartbeats
from watchpost.history.service import Observation, record
from watchpost.monitors.checking import skip_for_maintenance
from watchpost.monitors.models import Monitor
from watchpost.monitors.status_machine import record_check
from watchpost.probes.base import ProbeResult

HOUR = timedelta(hours=1)


async def check(
    app: FastAPI,
    monitor_id: str | int,
    *,
    ok: bool,
    at: datetime,
    latency_ms: float | None = 50.0,
) -> None:
    """What the engine does with a finished check: the status machine moves and the result
    is recorded in the history (engine/writer.py)."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        monitor = await session.get(Monitor, int(monitor_id))
        assert monitor is not None
        monitor.last_checked_at = at
        record_check(monitor, ok=ok, error=None if ok else "Status 503", at=at)
        observation = Observation(
            team_id=monitor.team_id,
            subject_type="monitor",
            subject_id=monitor.id,
            at=at,
            state="up" if ok else "down",
            valid_for_s=2 * monitor.check_frequency,
            latency_ms=latency_ms,
            error=None if ok else "Status 503",
        )
        await record(session, [observation])


async def look(app: FastAPI, api: Api, clock: FrozenClock, **filters: Any) -> Any:
    async with app.state.ctx.db.read_sessions() as session:
        return await overview(
            session, team_id=api.team_id, flt=OverviewFilter(**filters), now=clock.now()
        )


def shown(rows: list[Row]) -> list[tuple[str, str, str]]:
    return [(row.kind, row.name, row.state) for row in rows]


async def every_state(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> dict[str, Any]:
    """A row in each state of each kind that has it."""
    made: dict[str, Any] = {}
    for name in ("Up", "Down", "Paused", "Pending", "Validating", "Maintenance"):
        made[name] = await create_monitor(
            api,
            url=f"https://{name.lower()}.example.com",
            pronounceable_name=f"{name} site",
            confirmation_period=0,
            recovery_period=600,
        )
    now = clock.advance(60)
    await check(app, made["Up"]["id"], ok=True, at=now, latency_ms=80.0)
    await check(app, made["Down"]["id"], ok=False, at=now)
    await check(app, made["Validating"]["id"], ok=False, at=now)
    now = clock.advance(60)
    await check(app, made["Validating"]["id"], ok=True, at=now)
    data(await api.patch(f"{MONITORS}/{made['Paused']['id']}", {"paused": True}))
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        monitor = await session.get(Monitor, int(made["Maintenance"]["id"]))
        assert monitor is not None
        skip_for_maintenance(monitor)

    for name in ("up job", "down job", "pending job", "paused job", "quiet job"):
        made[name] = await create_heartbeat(api, name=name)
    assert (await client.get(made["up job"].url)).status_code == 200
    assert (await client.get(made["down job"].url + "/fail")).status_code == 200
    assert (await client.get(made["quiet job"].url)).status_code == 200
    data(await api.patch(f"/api/v2/heartbeats/{made['paused job'].id}", {"paused": True}))
    window = {"maintenance_from": "00:00:00", "maintenance_to": "00:00:00"}  # all day
    data(await api.patch(f"/api/v2/heartbeats/{made['quiet job'].id}", window))
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await observe_heartbeats(session, now=clock.now())

    collector = await create_collector(api)
    made["redis"] = await create_target(api, collector["id"], target_body("redis", port=6379))
    made["disabled"] = await create_target(
        api,
        collector["id"],
        target_body("memcached", host="cache.internal", port=11211, enabled=False),
    )
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        target = await session.get(CollectorTarget, int(made["redis"]["id"]))
        assert target is not None
        targets.record_result(target, ProbeResult(ok=True, latency_ms=3.0), at=clock.now())
    made["collector"] = collector
    return made


async def test_each_kind_shows_its_state_in_words_and_the_counts_cover_the_team(
    app: FastAPI, api: Api, other_api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    await create_monitor(other_api, pronounceable_name="Down site of another team")
    made = await every_state(app, api, client, clock)
    seen = await look(app, api, clock, per_page=100)
    assert sorted(shown(seen.rows)) == sorted(
        [
            ("monitor", "Up site", "up"),
            ("monitor", "Down site", "down"),
            ("monitor", "Paused site", "paused"),
            ("monitor", "Pending site", "pending"),
            ("monitor", "Validating site", "pending"),
            ("monitor", "Maintenance site", "maintenance"),
            ("heartbeat", "up job", "up"),
            ("heartbeat", "down job", "down"),
            ("heartbeat", "pending job", "pending"),
            ("heartbeat", "paused job", "paused"),
            ("heartbeat", "quiet job", "maintenance"),
            ("target", "redis target db.internal:6379", "up"),
            ("target", "memcached target cache.internal:11211", "paused"),
        ]
    )
    assert seen.counts == {"up": 3, "down": 2, "paused": 3, "pending": 3, "maintenance": 2}
    assert (seen.total, seen.pages) == (13, 1)
    by_name = {row.name: row for row in seen.rows}
    created, now = clock.now() - timedelta(seconds=120), clock.now()
    assert {name: row.since for name, row in by_name.items()} == {
        "Up site": created,  # no incident since it was created
        "Down site": created + timedelta(seconds=60),  # the outage's first failure
        "Validating site": now,  # recovery began
        "Pending site": created,  # never checked
        "Paused site": now,
        "Maintenance site": None,
        "up job": None,  # no incident, and its first ping is not kept
        "down job": now,  # the failure ping's incident began
        "pending job": now,
        "paused job": now,
        "quiet job": None,
        "redis target db.internal:6379": now,
        "memcached target cache.internal:11211": None,
    }
    assert by_name["Up site"].url == "https://up.example.com"
    assert by_name["up job"].url is None
    assert by_name["redis target db.internal:6379"].url == "db.internal:6379"
    assert by_name["Up site"].response_ms == 80.0
    assert by_name["redis target db.internal:6379"].id == int(made["redis"]["id"])

    # the filter narrows the rows, never the counts
    downs = await look(app, api, clock, states=frozenset({"down"}))
    assert shown(downs.rows) == [
        ("heartbeat", "down job", "down"),
        ("monitor", "Down site", "down"),
    ]
    assert downs.counts == seen.counts


async def test_search_matches_names_and_urls_in_any_case_and_filters_combine(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    await every_state(app, api, client, clock)
    by_url = await look(app, api, clock, search="DOWN.EXAMPLE")
    assert shown(by_url.rows) == [("monitor", "Down site", "down")]
    by_name = await look(app, api, clock, search="job", sort="name")
    assert [row.name for row in by_name.rows] == [
        "down job",
        "paused job",
        "pending job",
        "quiet job",
        "up job",
    ]
    assert (await look(app, api, clock, search="db.internal:63")).total == 1
    assert (await look(app, api, clock, search="%")).total == 0  # no wildcard
    assert (await look(app, api, clock, search="_")).total == 0
    kinds = await look(app, api, clock, kinds=frozenset({"heartbeat", "target"}))
    assert {row.kind for row in kinds.rows} == {"heartbeat", "target"}
    assert kinds.total == 7
    both = await look(
        app, api, clock, kinds=frozenset({"monitor"}), states=frozenset({"up", "paused"})
    )
    assert shown(both.rows) == [("monitor", "Up site", "up"), ("monitor", "Paused site", "paused")]


async def test_a_group_filter_shows_that_group_only(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await every_state(app, api, client, clock)
    group = data(await api.post(GROUPS, {"name": "shop"}), 201)
    inside = await create_monitor(api, pronounceable_name="Cart", monitor_group_id=int(group["id"]))
    seen = await look(app, api, clock, group_id=int(group["id"]), group_kind="monitor")
    assert [(row.kind, row.id) for row in seen.rows] == [("monitor", int(inside["id"]))]
    collector = int(made["collector"]["id"])
    targets_of = await look(app, api, clock, group_id=collector, group_kind="collector")
    assert {row.kind for row in targets_of.rows} == {"target"} and targets_of.total == 2
    # a group of one kind with a filter of another kind matches nothing
    none = await look(
        app,
        api,
        clock,
        group_id=int(group["id"]),
        group_kind="monitor",
        kinds=frozenset({"heartbeat"}),
    )
    assert (none.total, none.rows, none.pages) == (0, [], 1)


async def test_sorting_and_paging(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    await every_state(app, api, client, clock)
    by_state = await look(app, api, clock, per_page=100)
    ranks = ["down", "pending", "maintenance", "up", "paused"]
    states = [row.state for row in by_state.rows]
    assert states == sorted(states, key=ranks.index)
    downs = [row.name for row in by_state.rows if row.state == "down"]
    assert downs == ["down job", "Down site"]  # then by name, any case

    names = [row.name for row in (await look(app, api, clock, sort="name", per_page=100)).rows]
    assert names == sorted(names, key=str.lower)
    backwards = await look(app, api, clock, sort="-name", per_page=100)
    assert [row.name for row in backwards.rows] == names[::-1]

    pages = [await look(app, api, clock, sort="name", per_page=5, page=n) for n in (1, 2, 3)]
    assert [name for page in pages for name in (row.name for row in page.rows)] == names
    assert [(p.total, p.page, p.pages, len(p.rows)) for p in pages] == [
        (13, 1, 3, 5),
        (13, 2, 3, 5),
        (13, 3, 3, 3),
    ]
    beyond = await look(app, api, clock, sort="name", per_page=5, page=99)
    assert (beyond.page, [row.name for row in beyond.rows]) == (3, names[10:])

    slowest = await look(app, api, clock, sort="response_time", per_page=100)
    timed = [(row.name, row.response_ms) for row in slowest.rows if row.response_ms is not None]
    assert timed[0] == ("Up site", 80.0)
    assert [ms for _, ms in timed] == sorted((ms for _, ms in timed), reverse=True)
    assert all(row.response_ms is None for row in slowest.rows[len(timed) :])

    latest = await look(app, api, clock, sort="since", per_page=100)
    moments = [row.since for row in latest.rows if row.since is not None]
    assert moments == sorted(moments, reverse=True)
    assert all(row.since is None for row in latest.rows[len(moments) :])


async def test_sparkline_and_availability_come_from_the_recorded_checks(
    app: FastAPI, api: Api, other_api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor(api, pronounceable_name="Timed", check_frequency=180)
    quiet = await create_monitor(api, pronounceable_name="Unchecked")
    foreign = await create_monitor(other_api, pronounceable_name="Timed elsewhere")
    clock.advance(timedelta(days=3, minutes=30))  # now: 30 minutes into an hour
    now = clock.now()
    hour_now = now.replace(minute=0, second=0, microsecond=0)
    start = hour_now - 30 * HOUR  # before the sparkline's window
    down_hours = {hour_now - 5 * HOUR, hour_now - 17 * HOUR}
    empty_hour = hour_now - 9 * HOUR
    moments, states = [], []
    at = start
    while at <= now:
        hour = at.replace(minute=0, second=0, microsecond=0)
        if hour != empty_hour:
            ok = not (hour in down_hours and at.minute == 20)
            latency = 100.0 + (hour_now - hour).total_seconds() / 3600 + at.minute
            await check(app, monitor["id"], ok=ok, at=at, latency_ms=latency)
            await check(app, foreign["id"], ok=False, at=at, latency_ms=1.0)
            moments.append(at)
            states.append(ok)
        at += timedelta(minutes=10)

    seen = await look(app, api, clock, sort="name")
    timed = next(row for row in seen.rows if row.name == "Timed")
    hours = [hour_now - (23 - n) * HOUR for n in range(24)]
    expected = []
    for hour in hours:
        minutes = [m.minute for m in moments if m.replace(minute=0) == hour]
        base = 100.0 + (hour_now - hour).total_seconds() / 3600
        expected.append(base + sum(minutes) / len(minutes) if minutes else None)
    assert timed.spark == tuple(expected)
    assert expected[-1] is not None and expected[hours.index(empty_hour)] is None
    assert timed.spark_down == tuple(hour in down_hours for hour in hours)
    # each span belongs to the state of the check that began it; the empty hour is a gap
    # of 70 minutes, only 6 of which (2 x the interval) count; the last check's span stands
    up = down = 0.0
    for n in range(len(moments) - 1):
        seconds = min((moments[n + 1] - moments[n]).total_seconds(), 360)
        up, down = (up + seconds, down) if states[n] else (up, down + seconds)
    assert timed.availability_30d is not None
    assert abs(timed.availability_30d - round(100 * up / (up + down), 4)) < 1e-9
    assert timed.availability_30d < 100
    assert timed.response_ms == 100.0 + 30

    untouched = next(row for row in seen.rows if row.name == "Unchecked")
    assert untouched.id == int(quiet["id"])
    assert untouched.spark == (None,) * 24 and untouched.spark_down == (False,) * 24
    assert (untouched.availability_30d, untouched.response_ms) == (None, None)
    assert "Timed elsewhere" not in [row.name for row in seen.rows]


async def test_maintenance_time_counts_neither_way(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor(api, pronounceable_name="Windowed", check_frequency=300)
    start = clock.advance(timedelta(hours=2))
    observations = [
        Observation(api.team_id, "monitor", int(monitor["id"]), start, "down", 600),
        Observation(
            api.team_id, "monitor", int(monitor["id"]), start + HOUR / 6, "maintenance", 3600
        ),
        Observation(api.team_id, "monitor", int(monitor["id"]), start + HOUR / 2, "up", 1800),
        Observation(api.team_id, "monitor", int(monitor["id"]), start + HOUR, "up", 600),
    ]
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await record(session, observations)
    clock.advance(HOUR)
    (row,) = (await look(app, api, clock)).rows
    assert row.availability_30d == round(100 * 1800 / (600 + 1800), 4)


async def test_all_matching_ids_follow_the_filter_within_the_team(
    app: FastAPI, api: Api, other_api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await every_state(app, api, client, clock)
    await create_monitor(other_api, pronounceable_name="Up site too", url="https://up.example.com")
    async with app.state.ctx.db.read_sessions() as session:
        ups = await all_matching_ids(
            session,
            team_id=api.team_id,
            flt=OverviewFilter(search="up", states=frozenset({"up"}), page=3),
            now=clock.now(),
        )
        sites = await all_matching_ids(
            session,
            team_id=api.team_id,
            flt=OverviewFilter(kinds=frozenset({"monitor"}), search="site"),
            now=clock.now(),
        )
    assert ups == {
        "monitor": [int(made["Up"]["id"])],
        "heartbeat": [made["up job"].id],
        "target": [],
    }
    assert sites == {
        "monitor": sorted(
            int(made[name]["id"])
            for name in ("Up", "Down", "Paused", "Pending", "Validating", "Maintenance")
        )
    }
