"""The detail pages' reads, explained by the database: each goes through an index."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy import event

from tests.factories.api import Api
from tests.factories.heartbeats import create_heartbeat
from tests.factories.monitors import create_monitor
from tests.factories.objects import create_collector, create_target, target_body
from watchpost.clock import FrozenClock
from watchpost.console.detail_data import heartbeat_detail, monitor_detail, target_detail


async def test_every_read_goes_through_an_index(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    """The statements of the three details, explained by the database: no full scan (on
    PostgreSQL with sequential scans discouraged, as the planner of a big table would) but
    of the short table of locations."""
    monitor_id = int((await create_monitor(api))["id"])
    heartbeat = await create_heartbeat(api)
    assert (await api.get(heartbeat.url)).status_code == 200  # its ping log is read
    collector = await create_collector(api)
    target = await create_target(api, collector["id"], target_body("redis"))
    now = clock.now() + timedelta(minutes=1)  # they existed: availability is read
    seen: list[tuple[str, Any]] = []
    async with app.state.ctx.db.read_sessions() as session:
        sync_engine = (await session.connection()).engine.sync_engine

        def record(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
            seen.append((statement, params))

        event.listen(sync_engine, "before_cursor_execute", record)
        try:
            await monitor_detail(session, team_id=api.team_id, monitor_id=monitor_id, now=now)
            await heartbeat_detail(
                session, team_id=api.team_id, heartbeat_id=heartbeat.id, public_base="", now=now
            )
            await target_detail(
                session,
                team_id=api.team_id,
                collector_id=int(collector["id"]),
                target_id=int(target["id"]),
                now=now,
            )
        finally:
            event.remove(sync_engine, "before_cursor_execute", record)
        connection = await session.connection()
        sqlite = connection.dialect.name == "sqlite"
        if not sqlite:
            await connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
        assert len(seen) == 6 + 5 + 6
        for statement, params in seen:
            explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
            plan = [
                row[-1] for row in await connection.exec_driver_sql(explain + statement, params)
            ]
            # The locations (the operator's places and the teams' own: a short table) are
            # read whole by the monitor's "Checked from"; its rows of the monitor by index.
            if sqlite:
                scans = [line for line in plan if line.startswith("SCAN")]
                assert all(line.startswith("SCAN locations") for line in scans), (statement, plan)
            else:
                scans = [line for line in plan if "Seq Scan" in line]
                assert all("Seq Scan on locations" in line for line in scans), (statement, plan)
