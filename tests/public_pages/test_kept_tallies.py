"""The public page keeps each subject's tally of its older cells between requests
(records.summaries(keep_tallies=True)): its numbers must be those of the full computation
(the API's), to the last bit, and nothing may be served stale: a new check result, incident
or report shows on the next render."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.history import obs, write
from tests.public_pages.html import bar_runs
from tests.public_pages.pages import (
    new_monitor,
    new_page,
    new_report,
    new_resource,
    visit,
)
from tests.public_pages.seed import incident, observe
from watchpost.clock import FrozenClock
from watchpost.status_pages.models import StatusPage
from watchpost.status_pages.records import summaries
from watchpost.status_pages.resource_rows import all_rows
from watchpost.status_pages.resources import load_targets

NOW = datetime(2026, 3, 15, 12, 20, tzinfo=UTC)


async def _both(app: FastAPI, page_id: str, now: datetime) -> tuple[Any, Any]:
    """The page's summaries computed in full and with the kept tallies (as the page does)."""
    async with app.state.ctx.db.write_sessions() as session:
        page = await session.get(StatusPage, int(page_id))
        assert page is not None
        rows = await all_rows(session, page_id=page.id)
        targets = await load_targets(session, rows)
        full = await summaries(session, rows, targets, page=page, now=now)
        kept = await summaries(session, rows, targets, page=page, now=now, keep_tallies=True)
    return full, kept


def _same(full: Any, kept: Any) -> None:
    assert full.keys() == kept.keys()
    for rid, summary in full.items():
        assert kept[rid] == summary, rid  # the dataclass: status, availability, days, seconds


async def _monitor(app: FastAPI, api: Api, page_id: str, name: str, **extra: Any) -> int:
    monitor = await new_monitor(api, name)
    await new_resource(
        api,
        page_id,
        resource_type="Monitor",
        resource_id=monitor,
        widget_type="history",
        **extra,
    )
    return monitor


@pytest.mark.parametrize("timezone", ["UTC", "Asia/Kolkata", "America/New_York"])
async def test_kept_tallies_give_the_full_numbers(
    app: FastAPI, api: Api, clock: FrozenClock, timezone: str
) -> None:
    clock.set(NOW)
    page_id = await new_page(api, f"p{abs(hash(timezone)) % 10**6}", history=20, timezone=timezone)
    team = api.team_id
    steady = await _monitor(app, api, page_id, "Steady")
    gappy = await _monitor(app, api, page_id, "Gappy")
    quiet = await _monitor(app, api, page_id, "Quiet")  # never observed
    group = data(await api.post("/api/v2/monitor-groups", {"name": "web"}), 201)["id"]
    body = {"url": "https://member.example.com", "monitor_group_id": int(group)}
    member = int(data(await api.post("/api/v2/monitors", body), 201)["id"])
    await new_resource(api, page_id, resource_type="MonitorGroup", resource_id=int(group))
    hourly = await _monitor(app, api, page_id, "Hourly")  # latest check: the previous hour
    stopped = await _monitor(app, api, page_id, "Stopped")  # not checked for two days
    assert quiet
    before = NOW - timedelta(minutes=20)
    await observe(app, team, hourly, start=NOW - timedelta(days=5), end=before)
    await observe(app, team, stopped, start=NOW - timedelta(days=10), end=NOW - timedelta(days=2))
    # minute checks for the last day, hourly before; one monitor with gaps and a down spell
    await observe(app, team, steady, start=NOW - timedelta(days=25), end=NOW - timedelta(days=1))
    await observe(
        app, team, steady, start=NOW - timedelta(days=1), end=NOW, every=timedelta(minutes=1)
    )
    await observe(app, team, gappy, start=NOW - timedelta(days=9), end=NOW - timedelta(days=6))
    await observe(
        app, team, gappy, start=NOW - timedelta(hours=5), end=NOW, every=timedelta(minutes=7)
    )
    await observe(app, team, member, start=NOW - timedelta(days=3), end=NOW)
    await write(app, [obs(team, NOW - timedelta(hours=30), "down", subject_id=steady)])
    for days_ago, minutes, who in ((12, 50, steady), (7, 200, gappy), (2, 30, member)):
        start = NOW - timedelta(days=days_ago, hours=3)
        await incident(app, team, who, start, start + timedelta(minutes=minutes))
    await incident(app, team, steady, NOW - timedelta(hours=26), None)  # open, across midnight

    now = NOW
    midnight = datetime(2026, 3, 16, tzinfo=UTC)
    times = [NOW + timedelta(minutes=minutes) for minutes in (23, 63, 103, 143)]
    times += [midnight + timedelta(minutes=3), midnight + timedelta(minutes=65)]  # a new day
    for later in times:
        full, kept = await _both(app, page_id, now)
        _same(full, kept)
        _, again = await _both(app, page_id, now)  # from the kept tallies
        _same(full, again)
        # time goes on, checks arrive (across hours, and midnight)
        clock.set(later)
        every_minute = timedelta(minutes=1)
        start = now + every_minute
        await observe(app, team, steady, start=start, end=later, every=every_minute)
        start = now + timedelta(minutes=40)
        await observe(app, team, hourly, start=start, end=later, every=timedelta(hours=1))
        now = later
    full, kept = await _both(app, page_id, now)
    _same(full, kept)


async def test_a_new_check_incident_or_report_shows_on_the_next_render(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    clock.set(NOW)
    page_id = await new_page(api, "acme", history=10)
    monitor = await new_monitor(api, "Website")
    body = {"resource_type": "Monitor", "resource_id": monitor, "widget_type": "history"}
    resource = await new_resource(api, page_id, **body)
    team = api.team_id
    await observe(app, team, monitor, start=NOW - timedelta(days=10), end=NOW - timedelta(hours=1))
    await observe(
        app,
        team,
        monitor,
        start=NOW - timedelta(minutes=59),
        end=NOW,
        every=timedelta(minutes=1),
    )

    def website(doc: Any) -> Any:
        return next(li for li in doc.find_all("li") if li.find_all("span", cls="name"))

    _, doc = await visit(client, "/status/acme")
    assert website(doc).find("span", cls="st").text == "Operational"
    classes = {cls for _, _, cls, _ in bar_runs(website(doc).find("svg", cls="bars"))}
    assert classes == {"o"}

    # a check result: down now
    await write(app, [obs(team, NOW + timedelta(seconds=30), "down", subject_id=monitor)])
    clock.set(NOW + timedelta(minutes=1))
    await incident(app, team, monitor, NOW + timedelta(seconds=30), None)
    _, doc = await visit(client, "/status/acme")
    assert website(doc).find("span", cls="st").text == "Downtime"
    runs = bar_runs(website(doc).find("svg", cls="bars"))
    assert any(cls == "d1" and start == 9 for start, _, cls, _ in runs)  # today

    # an incident of a day that is over, written late: that day's bar changes
    await incident(
        app, team, monitor, NOW - timedelta(days=3), NOW - timedelta(days=3) + timedelta(hours=2)
    )
    _, doc = await visit(client, "/status/acme")
    runs = bar_runs(website(doc).find("svg", cls="bars"))
    assert any(cls == "d3" and start == 6 for start, _, cls, _ in runs)

    # a report
    affected = [{"status_page_resource_id": resource, "status": "degraded"}]
    body = {"title": "Elevated errors", "message": "On it.", "affected_resources": affected}
    await new_report(api, page_id, **body)
    _, doc = await visit(client, "/status/acme")
    assert "Elevated errors" in doc.text
    assert website(doc).find("span", cls="st").text == "Degraded"  # the report's status


async def test_checks_after_a_pause_show_on_the_next_render(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    clock.set(NOW)
    page_id = await new_page(api, "acme", history=10)
    monitor = await _monitor(app, api, page_id, "Website")
    team = api.team_id
    await observe(app, team, monitor, start=NOW - timedelta(days=12), end=NOW - timedelta(days=3))

    async def axis() -> str:
        _, doc = await visit(client, "/status/acme")
        return str(doc.find("p", cls="ax").text)

    assert "(7 of 10 days monitored)" in await axis()
    assert "(7 of 10 days monitored)" in await axis()  # from what was kept
    # checks again, from a minute ago: today is monitored
    clock.set(NOW + timedelta(minutes=1))
    await observe(
        app, team, monitor, start=NOW, end=NOW + timedelta(minutes=1), every=timedelta(minutes=1)
    )
    assert "(8 of 10 days monitored)" in await axis()
