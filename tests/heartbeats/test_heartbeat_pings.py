"""The public ping URLs: routes, methods, success and failure semantics, concurrency, cost."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event

from tests.factories.api import Api, data
from tests.factories.heartbeats import PING, create_heartbeat, events, incidents, row
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.heartbeats.pings import OUTPUT_LIMIT, failure_output
from watchpost.incidents.transitions import AUTOMATIC, start

METHODS = ("GET", "POST", "HEAD")
SUFFIXES = ("", "/fail", "/0", "/1", "/255")
WINDOW = timedelta(seconds=300 + 60)


async def _ping(client: httpx.AsyncClient, url: str, method: str = "GET", **kw: Any) -> str:
    response = await client.request(method, url, **kw)
    assert response.status_code == 200, (method, url, response.status_code, response.text)
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


@pytest.mark.parametrize("suffix", SUFFIXES)
async def test_every_route_and_method_answers_ok_without_a_token(
    api: Api, client: httpx.AsyncClient, suffix: str
) -> None:
    made = await create_heartbeat(api)
    for method in METHODS:
        text = await _ping(client, made.url + suffix, method)
        assert text == ("OK" if method != "HEAD" else ""), method


@pytest.mark.parametrize("suffix", SUFFIXES)
async def test_an_unknown_token_is_a_404(client: httpx.AsyncClient, suffix: str) -> None:
    for token in ("no-such-token", "x" * 65):
        for method in METHODS:
            response = await client.request(method, f"{PING}/{token}{suffix}")
            assert response.status_code == 404, (method, token)
            if method != "HEAD":
                assert response.json() == {"errors": "No heartbeat has this ping token"}


async def test_an_api_token_is_not_needed_and_not_checked(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    made = await create_heartbeat(api)
    bad = {"Authorization": "Bearer not-a-token"}
    assert (await client.get(made.url, headers=bad)).status_code == 200
    assert (await row(app, made.id)).status == "up"


@pytest.mark.parametrize("code", ["256", "1000", "-1", "abc", "1.5", "fail2"])
async def test_an_exit_code_outside_0_to_255_is_an_unknown_route(
    api: Api, client: httpx.AsyncClient, app: FastAPI, code: str
) -> None:
    made = await create_heartbeat(api)
    response = await client.post(f"{made.url}/{code}")
    assert response.status_code == 404
    path = f"{made.url}/{code}"
    assert response.json() == {"errors": f"Endpoint POST {path} does not exist."}
    assert (await row(app, made.id)).status == "pending"


async def test_first_ping_moves_pending_to_up_with_deadline_from_the_ping(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    before = await row(app, made.id)
    assert (before.status, before.last_ping_at, before.next_due_at) == ("pending", None, None)
    at = clock.advance(timedelta(minutes=7, microseconds=123456))
    await _ping(client, made.url)
    after = await row(app, made.id)
    assert (after.status, after.last_ping_at, after.next_due_at) == ("up", at, at + WINDOW)
    assert await incidents(app, made.id) == []


async def test_each_ping_moves_the_deadline_from_its_own_time(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    await _ping(client, made.url)
    for step in (timedelta(seconds=30), timedelta(hours=2, microseconds=7)):
        at = clock.advance(step)
        await _ping(client, made.url, "POST", content=b"ignored on success")
        current = await row(app, made.id)
        assert (current.status, current.last_ping_at, current.next_due_at) == (
            "up",
            at,
            at + WINDOW,
        )


async def test_exit_code_zero_is_a_success(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    made = await create_heartbeat(api)
    await _ping(client, f"{made.url}/0", "POST", content=b"all fine")
    assert (await row(app, made.id)).status == "up"
    assert await incidents(app, made.id) == []


@pytest.mark.parametrize(
    ("suffix", "how"), [("/fail", "/fail"), ("/1", "exit code 1"), ("/255", "exit code 255")]
)
async def test_a_failure_goes_down_at_once_and_opens_one_incident(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock, suffix: str, how: str
) -> None:
    made = await create_heartbeat(api, name="db dump")
    await _ping(client, made.url)
    at = clock.advance(60)
    await _ping(client, made.url + suffix, "POST", content=b"pg_dump: connection refused\n")
    current = await row(app, made.id)
    assert (current.status, current.last_ping_at, current.next_due_at) == ("down", at, at + WINDOW)
    [incident] = await incidents(app, made.id)
    assert incident.name == "db dump"
    assert incident.started_at == at and incident.resolved_at is None
    assert f"({how})" in incident.cause
    assert incident.cause.endswith("Output:\npg_dump: connection refused\n")
    # another failure while down: still that one incident
    clock.advance(60)
    await _ping(client, made.url + suffix, "POST", content=b"again")
    assert [item.id for item in await incidents(app, made.id)] == [incident.id]


async def test_a_success_after_a_failure_resolves_the_incident(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    await _ping(client, f"{made.url}/fail")
    at = clock.advance(120)
    await _ping(client, made.url)
    current = await row(app, made.id)
    assert (current.status, current.next_due_at) == ("up", at + WINDOW)
    [incident] = await incidents(app, made.id)
    assert (incident.resolved_at, incident.resolved_by) == (at, AUTOMATIC)
    last = (await events(app, incident))[-1]
    assert (last.kind, last.at, last.by) == ("resolved", at, AUTOMATIC)
    assert "Ping received" in last.text and "up again" in last.text


async def test_a_manually_reported_incident_is_left_for_a_person(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    await _ping(client, f"{made.url}/fail")
    [automatic] = await incidents(app, made.id)
    await _ping(client, made.url)
    ctx: AppContext = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        await start(
            session,
            team_id=api.team_id,
            name="reported",
            cause="a person saw it",
            at=clock.now(),
            heartbeat_id=made.id,
            manual=True,
        )
    await _ping(client, f"{made.url}/fail")  # an incident is open: no second one
    await _ping(client, made.url)
    first, reported = await incidents(app, made.id)
    assert (first.id, reported.manual) == (automatic.id, True)
    assert reported.resolved_at is None
    assert (await row(app, made.id)).status == "up"


async def test_the_output_is_kept_truncated_and_decoded(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    made = await create_heartbeat(api)
    body = b"x" * (OUTPUT_LIMIT - 1) + "é".encode() + b"tail that is dropped"
    await _ping(client, f"{made.url}/2", "POST", content=body)
    [incident] = await incidents(app, made.id)
    head, _, output = incident.cause.partition(f"Output, first {OUTPUT_LIMIT} bytes:\n")
    assert "(exit code 2)" in head
    # the "é" was cut in half at the limit: dropped, not turned into garbage
    assert output == "x" * (OUTPUT_LIMIT - 1)


def test_output_decoding_replaces_invalid_bytes_and_nul() -> None:
    assert failure_output(b"ok\xff\x00end") == ("ok\ufffd\ufffdend", False)
    assert failure_output(b"") == ("", False)
    assert failure_output(b"a" * (OUTPUT_LIMIT + 1)) == ("a" * OUTPUT_LIMIT, True)
    assert failure_output("é".encode() * (OUTPUT_LIMIT // 2)) == ("é" * (OUTPUT_LIMIT // 2), False)


async def test_the_output_never_reaches_the_logs(
    api: Api, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    made = await create_heartbeat(api)
    caplog.set_level(logging.DEBUG)
    await _ping(client, f"{made.url}/fail", "POST", content=b"output-marker-4242")
    assert "output-marker-4242" not in caplog.text


async def test_a_paused_heartbeat_ignores_every_ping(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    made = await create_heartbeat(api, paused=True)
    before = await row(app, made.id)
    for suffix in SUFFIXES:
        for method in METHODS:
            await _ping(client, made.url + suffix, method)
    after = await row(app, made.id)
    assert (after.status, after.last_ping_at, after.next_due_at) == ("paused", None, None)
    assert after.paused_at == before.paused_at
    assert await incidents(app, made.id) == []


async def test_a_failure_inside_the_maintenance_window_only_counts_as_a_ping(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    clock.set(datetime(2026, 1, 5, 2, 30, tzinfo=UTC))  # a Monday
    window = {"maintenance_from": "02:00:00", "maintenance_to": "03:00:00"}
    made = await create_heartbeat(api, **window)
    await _ping(client, f"{made.url}/fail")
    current = await row(app, made.id)
    assert (current.status, current.next_due_at) == ("up", clock.now() + WINDOW)
    assert await incidents(app, made.id) == []
    clock.advance(timedelta(hours=1))  # 03:30, outside
    await _ping(client, f"{made.url}/fail")
    assert (await row(app, made.id)).status == "down"
    assert len(await incidents(app, made.id)) == 1


class _Statements:
    """The SQL statements the engine runs while active (transaction control left out)."""

    def __init__(self, app: FastAPI) -> None:
        self.engine = app.state.ctx.db.engine.sync_engine
        self.seen: list[str] = []

    def _record(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            self.seen.append(statement)

    def __enter__(self) -> list[str]:
        event.listen(self.engine, "before_cursor_execute", self._record)
        return self.seen

    def __exit__(self, *_exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._record)


async def test_a_success_ping_of_an_up_heartbeat_is_two_statements(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    """One conditional UPDATE, then the ping log's upsert into the heartbeat's ring of rows
    (heartbeats/models.py HeartbeatPing): no prune, no count, no third statement. It was
    one statement before the log; the second costs ≈ 0.14 ms of CPU per ping (a success ping
    of an up heartbeat in process on SQLite, as bench/api_inprocess.py sends it: ≈ 0.64 ms
    before, ≈ 0.79 ms after), the price of showing every ping on the heartbeat's page."""
    made = await create_heartbeat(api)
    await _ping(client, made.url)
    with _Statements(app) as seen:
        await _ping(client, made.url)
    assert len(seen) == 2, seen
    assert seen[0].lstrip().upper().startswith("UPDATE HEARTBEATS")
    assert "RETURNING" in seen[0].upper()
    assert seen[1].lstrip().upper().startswith("INSERT INTO HEARTBEAT_PINGS")
    assert "ON CONFLICT" in seen[1].upper()


async def test_concurrent_successes_resolve_the_incident_once(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    await _ping(client, f"{made.url}/fail")
    clock.advance(10)
    await asyncio.gather(*(_ping(client, made.url) for _ in range(25)))
    assert (await row(app, made.id)).status == "up"
    [incident] = await incidents(app, made.id)
    assert incident.resolved_at == clock.now()
    assert [item.kind for item in await events(app, incident)] == ["started", "resolved"]


async def test_concurrent_failures_open_one_incident(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    made = await create_heartbeat(api)
    await _ping(client, made.url)
    await asyncio.gather(*(_ping(client, f"{made.url}/{1 + n % 5}") for n in range(25)))
    assert (await row(app, made.id)).status == "down"
    [incident] = await incidents(app, made.id)
    assert incident.resolved_at is None


async def test_concurrent_mixed_pings_leave_a_consistent_state(
    api: Api, client: httpx.AsyncClient, app: FastAPI, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    for round_ in range(3):
        clock.advance(30)
        urls = [made.url if n % 2 else f"{made.url}/fail" for n in range(20 + round_)]
        await asyncio.gather(*(_ping(client, url) for url in urls))
        current = await row(app, made.id)
        found = await incidents(app, made.id)
        still_open = [item for item in found if item.resolved_at is None]
        assert len(still_open) == (1 if current.status == "down" else 0)
        assert current.last_ping_at == clock.now()
        assert current.next_due_at == clock.now() + WINDOW
        for incident in found:
            kinds = [item.kind for item in await events(app, incident)]
            assert kinds in (["started"], ["started", "resolved"])


async def test_the_heartbeat_api_shows_the_status_pings_set(
    api: Api, client: httpx.AsyncClient
) -> None:
    made = await create_heartbeat(api)
    await _ping(client, made.url)
    assert data(await api.get(f"/api/v2/heartbeats/{made.id}"))["attributes"]["status"] == "up"
    await _ping(client, f"{made.url}/fail")
    assert data(await api.get(f"/api/v2/heartbeats/{made.id}"))["attributes"]["status"] == "down"
