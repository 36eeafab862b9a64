"""The public page reuses the incidents it read while the database's fingerprint of them (the
rows' count, the sum of their ids and of their change stamps, migration 0031) stays the same
(status_pages/incident_reads.py). Any committed change must show on the next render, and a
change rolled back never: the numbers are always those read afresh."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import delete, update

from tests.public_pages.html import bar_runs
from tests.public_pages.pages import new_monitor, new_page, new_resource, visit
from tests.public_pages.seed import observe
from watchpost.clock import FrozenClock
from watchpost.incidents.models import Incident
from watchpost.status_pages import incident_reads
from watchpost.status_pages.models import StatusPage
from watchpost.status_pages.records import summaries
from watchpost.status_pages.resource_rows import all_rows
from watchpost.status_pages.resources import load_targets

NOW = datetime(2026, 3, 15, 12, 20, tzinfo=UTC)
RULE = {"key": "team", "values": [{"value": "payments"}]}


def _kept(app: FastAPI) -> list[Any]:
    """The incident reads the process keeps for the test's database (the objects: a read
    made again is a new one)."""
    kept = incident_reads._reads.get(app.state.ctx.db.engine.sync_engine)
    return [] if kept is None else list(kept.reads.values())


def _same_objects(before: list[Any], after: list[Any]) -> bool:
    return len(before) == len(after) and all(a is b for a, b in zip(before, after, strict=True))


async def _numbers(session: Any, page_id: str, now: datetime, *, kept: bool) -> Any:
    page = await session.get(StatusPage, int(page_id))
    assert page is not None
    rows = await all_rows(session, page_id=page.id)
    targets = await load_targets(session, rows)
    return await summaries(session, rows, targets, page=page, now=now, keep_tallies=kept)


async def _render(app: FastAPI, page_id: str, now: datetime) -> Any:
    """The page's numbers as the public page computes them (kept tallies, reused incidents,
    a read session), checked against the full computation read afresh."""
    async with app.state.ctx.db.read_sessions() as session:
        kept = await _numbers(session, page_id, now, kept=True)
    async with app.state.ctx.db.read_sessions() as session:
        full = await _numbers(session, page_id, now, kept=False)
    assert kept == full
    return kept


async def _incident(
    app: FastAPI,
    team_id: int,
    monitor_id: int,
    start: datetime,
    end: datetime | None,
    metadata: dict[str, Any] | None = None,
) -> int:
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = Incident(
            team_id=team_id,
            name="Down",
            cause="timeout",
            monitor_id=monitor_id,
            started_at=start,
            resolved_at=end,
            metadata_=metadata or {},
            created_at=start,
            updated_at=start,
        )
        session.add(row)
        await session.flush()
        return row.id


async def _change(app: FastAPI, incident_id: int, **values: Any) -> None:
    """An incident changed through the ORM, as the services change them."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = await session.get(Incident, incident_id)
        assert row is not None
        for name, value in values.items():
            setattr(row, name, value)


async def _statement(app: FastAPI, statement: Any) -> None:
    """A bulk UPDATE or DELETE, without the ORM's objects."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await session.execute(statement)


async def _page(app: FastAPI, api: Any, **page: Any) -> tuple[str, dict[str, int], dict[int, str]]:
    """A page of two monitors observed for the last ten days (`plain`, and `tagged`, down only
    for incidents whose metadata match RULE): the page, the monitors, the resources."""
    page_id = await new_page(api, "acme", history=10, **page)
    monitors = {name: await new_monitor(api, name) for name in ("plain", "tagged")}
    resources = {}
    for name, monitor in monitors.items():
        body: dict[str, Any] = {"resource_type": "Monitor", "resource_id": monitor}
        if name == "tagged":
            body |= {
                "mark_as_down_for": "incident_matching_metadata",
                "mark_as_down_metadata_rule": RULE,
            }
        resources[monitor] = await new_resource(api, page_id, widget_type="history", **body)
        await observe(app, api.team_id, monitor, start=NOW - timedelta(days=11), end=NOW)
    return page_id, monitors, {monitor: rid for monitor, rid in resources.items()}


def _days(numbers: Any, resource: str) -> list[tuple[str, int]]:
    return [(d["status"], d["downtime_duration"]) for d in numbers[int(resource)].status_history]


async def test_a_changed_incident_shows_on_the_next_render(
    app: FastAPI, api: Any, clock: FrozenClock
) -> None:
    clock.set(NOW)
    page_id, monitors, resources = await _page(app, api)
    team, plain, tagged = api.team_id, monitors["plain"], monitors["tagged"]
    ago = NOW - timedelta(days=2)
    first = await _incident(app, team, plain, ago - timedelta(hours=3), ago)
    ago = NOW - timedelta(days=5)
    other = await _incident(app, team, tagged, ago, ago + timedelta(hours=1))
    numbers = await _render(app, page_id, NOW)
    kept = _kept(app)
    assert kept
    assert await _render(app, page_id, NOW) == numbers
    assert _same_objects(kept, _kept(app))  # unchanged: reused

    new = NOW - timedelta(days=6)
    resolve_open = update(Incident).where(Incident.resolved_at.is_(None))
    steps: list[tuple[str, Any]] = [
        ("new", _incident(app, team, plain, new, new + timedelta(hours=2))),
        ("open", _incident(app, team, plain, NOW - timedelta(minutes=30), None)),
        ("moved", _change(app, first, started_at=NOW - timedelta(days=3, hours=5))),
        ("tagged", _change(app, other, metadata_={"team": ["payments"]})),
        ("untagged", _change(app, other, metadata_={"team": ["search"]})),
        ("resolved", _statement(app, resolve_open.values(resolved_at=NOW - timedelta(minutes=9)))),
        (
            "ended later",
            _statement(
                app,
                update(Incident)
                .where(Incident.id == first)
                .values(resolved_at=NOW - timedelta(days=1)),
            ),
        ),
        ("deleted", _statement(app, delete(Incident).where(Incident.id == first))),
    ]
    for name, step in steps:
        before = numbers
        await step
        numbers = await _render(app, page_id, NOW)
        assert numbers != before, name  # each step changes what the page shows
        assert not _same_objects(kept, _kept(app)), name  # read again …
        kept = _kept(app)
        assert await _render(app, page_id, NOW) == numbers
        assert _same_objects(kept, _kept(app)), name  # … then reused
    # what the steps left: the tagged monitor's incident no longer matches the rule
    assert all(status == "operational" for status, _ in _days(numbers, resources[tagged]))


async def test_the_page_shows_a_new_and_a_deleted_incident(
    app: FastAPI, api: Any, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    clock.set(NOW)
    _, monitors, _ = await _page(app, api)

    async def down_days() -> list[int]:
        _, doc = await visit(client, "/status/acme")
        item = next(li for li in doc.find_all("li") if li.find_all("span", cls="name"))
        runs = bar_runs(item.find("svg", cls="bars"))
        return sorted(start for start, _, cls, _ in runs if cls.startswith("d"))

    assert await down_days() == []
    kept = _kept(app)
    assert await down_days() == []
    assert _same_objects(kept, _kept(app))
    start = NOW - timedelta(days=3)
    found = await _incident(app, api.team_id, monitors["plain"], start, start + timedelta(hours=2))
    assert await down_days() == [6]
    await _statement(app, delete(Incident).where(Incident.id == found))
    assert await down_days() == []


async def test_an_open_incident_counts_once_it_lasted_the_minimum_without_a_change(
    app: FastAPI, api: Any, clock: FrozenClock
) -> None:
    clock.set(NOW)
    page_id, monitors, resources = await _page(app, api, min_incident_length=600)
    plain = monitors["plain"]
    await _incident(app, api.team_id, plain, NOW - timedelta(minutes=5), None)
    numbers = await _render(app, page_id, NOW)
    assert numbers[int(resources[plain])].status == "operational"  # 5 of 10 minutes
    kept = _kept(app)
    later = NOW + timedelta(minutes=6)
    clock.set(later)
    numbers = await _render(app, page_id, later)
    assert numbers[int(resources[plain])].status == "downtime"
    assert _same_objects(kept, _kept(app))  # the same incidents; their length is the request's


async def test_a_rolled_back_change_leaves_no_stale_page(
    app: FastAPI, api: Any, clock: FrozenClock
) -> None:
    """A render inside a transaction that is then rolled back sees its change; the next
    change committed (on SQLite it gets the stamp the rolled-back one had) must show, not
    what the rolled-back transaction saw, in a reader's session as in a writer's."""
    clock.set(NOW)
    page_id, monitors, _ = await _page(app, api)
    start = NOW - timedelta(days=2)
    found = await _incident(app, api.team_id, monitors["plain"], start, start + timedelta(hours=1))
    original = await _render(app, page_id, NOW)

    async with app.state.ctx.db.write_sessions() as session:
        transaction = await session.begin()
        row = await session.get(Incident, found)
        assert row is not None
        row.started_at = NOW - timedelta(days=4)
        row.resolved_at = NOW - timedelta(days=4) + timedelta(hours=3)
        await session.flush()
        inside = await _numbers(session, page_id, NOW, kept=True)
        assert inside != original
        await transaction.rollback()

    await _change(
        app,
        found,
        started_at=NOW - timedelta(days=6),
        resolved_at=NOW - timedelta(days=6) + timedelta(hours=5),
    )
    after = await _render(app, page_id, NOW)
    assert after not in (original, inside)
    assert await _render(app, page_id, NOW) == after
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        assert await _numbers(session, page_id, NOW, kept=True) == after  # a writer's too

    # and rolled back with nothing after it: the page is what it was
    async with app.state.ctx.db.write_sessions() as session:
        transaction = await session.begin()
        await session.execute(delete(Incident).where(Incident.id == found))
        await _numbers(session, page_id, NOW, kept=True)
        await transaction.rollback()
    assert await _render(app, page_id, NOW) == after


def test_the_reads_kept_hold_a_bounded_number_of_incidents(monkeypatch: Any) -> None:
    monkeypatch.setattr(incident_reads, "INCIDENTS_KEPT", 10)

    def read(count: int) -> Any:
        return incident_reads._Read((count, count, count), {})

    kept = incident_reads._Kept()
    kept.put("a", read(4))
    kept.put("b", read(4))
    assert kept.get("a") is not None  # a is now the most recently used
    kept.put("c", read(4))  # 12 > 10: b goes
    assert (list(kept.reads), kept.incidents) == (["a", "c"], 8)
    kept.put("a", read(2))  # replaces a's read
    assert (list(kept.reads), kept.incidents) == (["c", "a"], 6)
    kept.put("d", read(11))  # more than all: not kept
    assert (list(kept.reads), kept.incidents) == (["c", "a"], 6)
