"""The status machine's columns through the database and the API: pause, resume, last_error."""

from __future__ import annotations

from datetime import timedelta

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.monitors import MONITORS, create_monitor
from watchpost.clock import FrozenClock
from watchpost.monitors.models import Monitor
from watchpost.monitors.status_machine import record_check


async def _check(
    app: FastAPI, monitor_id: str, *, ok: bool, error: str | None, clock: FrozenClock
) -> None:
    """What the engine does with a finished check (the status part of it)."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row: Monitor | None = await session.get(Monitor, int(monitor_id))
        assert row is not None
        record_check(row, ok=ok, error=error, at=clock.now())


async def _row(app: FastAPI, monitor_id: str) -> Monitor:
    async with app.state.ctx.db.read_sessions() as session:
        row: Monitor | None = await session.get(Monitor, int(monitor_id))
    assert row is not None
    return row


async def test_state_is_stored_and_last_error_shown(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor(api, confirmation_period=60, recovery_period=60)
    await _check(app, monitor["id"], ok=False, error="Status 503", clock=clock)
    shown = data(await api.get(f"{MONITORS}/{monitor['id']}"))["attributes"]
    assert (shown["status"], shown["last_error"]) == ("pending", "Status 503")
    clock.advance(60)
    await _check(app, monitor["id"], ok=False, error="Status 503", clock=clock)
    row = await _row(app, monitor["id"])
    assert (row.status, row.check_status, row.failing_since) == (
        "down",
        "down",
        clock.now() - timedelta(seconds=60),
    )
    clock.advance(60)
    await _check(app, monitor["id"], ok=True, error=None, clock=clock)
    shown = data(await api.get(f"{MONITORS}/{monitor['id']}"))["attributes"]
    assert (shown["status"], shown["last_error"]) == ("validating", None)


async def test_resume_shows_pending_and_keeps_the_outage(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor(api, recovery_period=60)
    await _check(app, monitor["id"], ok=False, error="refused", clock=clock)
    clock.advance(30)
    await _check(app, monitor["id"], ok=True, error=None, clock=clock)
    assert (await _row(app, monitor["id"])).check_status == "validating"
    url = f"{MONITORS}/{monitor['id']}"
    paused = data(await api.patch(url, {"paused": True}))["attributes"]
    assert paused["status"] == "paused"
    clock.advance(86_400)
    resumed = data(await api.patch(url, {"paused": False}))["attributes"]
    assert resumed["status"] == "pending"
    row = await _row(app, monitor["id"])
    # The incident stays open; validation starts over at the next success.
    assert (row.check_status, row.recovering_since) == ("down", None)


async def test_resume_forgets_unconfirmed_failures(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor(api, confirmation_period=120)
    await _check(app, monitor["id"], ok=True, error=None, clock=clock)
    await _check(app, monitor["id"], ok=False, error="refused", clock=clock)
    url = f"{MONITORS}/{monitor['id']}"
    data(await api.patch(url, {"paused": True}))
    data(await api.patch(url, {"paused": False}))
    row = await _row(app, monitor["id"])
    assert (row.status, row.check_status, row.failing_since) == ("pending", "up", None)
