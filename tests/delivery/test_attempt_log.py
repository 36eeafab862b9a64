"""Every counted attempt of a delivery is logged (`delivery_attempts`), in the transaction
that records its outcome and in one statement per batch: its time, status code or error,
duration, excerpt and the next attempt it scheduled. An outcome whose worker lost the lease
is not logged; a delivery keeps its newest ATTEMPT_LOG_SIZE attempts; attempts go with
their delivery. The webhook's API log shows them as `attempt_log`; an incident's
deliveries do not. Migration 0037 builds the table on both databases, and goes down and up.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from alembic import command
from fastapi import FastAPI
from sqlalchemy import event, select

from tests.factories.api import Api, data
from tests.factories.delivery import (
    WEBHOOKS,
    Answer,
    advance,
    configure,
    create_webhook,
    deliverer_of,
    deliveries,
    receiver,
)
from tests.factories.incidents import create_reported_incident
from tests.factories.migrations import differences, fresh_database, tables
from watchpost.clock import isoformat_ms
from watchpost.context import AppContext
from watchpost.db.migrate import alembic_config, upgrade
from watchpost.delivery import attempt_log
from watchpost.delivery import service as delivery_service
from watchpost.delivery.models import Delivery, DeliveryAttempt
from watchpost.delivery.results import Attempt
from watchpost.delivery.schemas import WebhookDeliveryAttributes
from watchpost.delivery.sending import Outcome
from watchpost.delivery.worker import LEASE_MARGIN_S


@pytest.fixture(autouse=True)
def quick_retries(app: FastAPI) -> None:
    configure(app, delivery_retry_delays="0,1,1", delivery_timeout=2)


async def logged(app: FastAPI) -> list[DeliveryAttempt]:
    async with app.state.ctx.db.read_sessions() as session:
        return list(
            await session.scalars(
                select(DeliveryAttempt).order_by(
                    DeliveryAttempt.delivery_id, DeliveryAttempt.number
                )
            )
        )


@contextmanager
def statements(app: FastAPI) -> Iterator[list[str]]:
    """The SQL the app's engine runs meanwhile."""
    seen: list[str] = []
    engine = app.state.ctx.db.engine.sync_engine

    def note(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)


async def test_two_failures_then_a_success_log_three_attempts(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(500, body="down"), Answer(502, body=""))
        webhook = await create_webhook(api, hook.url())
        incident = await create_reported_incident(api)
        worker = deliverer_of(app)
        times, scheduled = [], []
        for _ in range(3):
            times.append(app.state.ctx.clock.now())
            await worker.tick()
            [delivery] = await deliveries(app)
            scheduled.append(delivery.next_attempt_at)
            advance(app, 1.2)
    assert [(d.state, d.attempts) for d in await deliveries(app)] == [("succeeded", 3)]
    rows = await logged(app)
    assert [(r.number, r.status_code) for r in rows] == [(1, 500), (2, 502), (3, 200)]
    assert [r.attempted_at for r in rows] == times
    assert [r.next_attempt_at for r in rows] == scheduled
    assert scheduled[0] is not None and scheduled[1] is not None and scheduled[2] is None
    assert 0.9 <= (scheduled[0] - times[0]).total_seconds() <= 1.1
    assert [r.error for r in rows] == ["HTTP 500", "HTTP 502", None]
    assert [r.response_excerpt for r in rows] == ["down", None, "ok"]
    assert all(r.duration_ms is not None and r.duration_ms >= 0 for r in rows)
    assert {(r.team_id, r.delivery_id) for r in rows} == {(delivery.team_id, delivery.id)}

    # The API's log: newest first, as the rows say.
    [shown] = (await api.get(f"{WEBHOOKS}/{webhook['id']}/deliveries")).json()["data"]
    WebhookDeliveryAttributes.model_validate(shown["attributes"])  # as the OpenAPI says
    log = shown["attributes"]["attempt_log"]
    assert [(a["attempt"], a["status_code"], a["error"]) for a in log] == [
        (3, 200, None),
        (2, 502, "HTTP 502"),
        (1, 500, "HTTP 500"),
    ]
    assert log[2]["attempted_at"] == isoformat_ms(times[0])
    assert log[2]["next_attempt_at"] == isoformat_ms(scheduled[0])
    assert log[0]["next_attempt_at"] is None and log[2]["response_excerpt"] == "down"
    one = data(await api.get(f"{WEBHOOKS}/{webhook['id']}/deliveries/{delivery.id}"))
    assert one["attributes"]["attempt_log"] == log
    # An incident's deliveries are listed as before, without the log.
    [told] = (await api.get(f"/api/v2/incidents/{incident['id']}/deliveries")).json()["data"]
    assert "attempt_log" not in told["attributes"]
    assert told["attributes"]["attempts"] == 3


async def test_a_batch_of_outcomes_is_logged_in_one_statement(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        for n in range(6):
            path = "/bad" if n % 2 else "/ok"
            hook.answer(path, Answer(503 if n % 2 else 200))
            await create_webhook(api, hook.url(path), name=f"Hook {n}")
        await create_reported_incident(api)
        worker = deliverer_of(app)
        now = app.state.ctx.clock.now()
        await worker.dispatch(now)
        jobs = await worker.claim(now, 50)
        attempts = [await worker.attempt(job) for job in jobs]
        assert len(attempts) == 6
        with statements(app) as seen:
            assert await worker.record(attempts) == 6
    inserts = [s for s in seen if "delivery_attempts" in s]
    assert len(inserts) == 1 and inserts[0].lstrip().upper().startswith("INSERT")
    codes = {d.id: d.status_code for d in await deliveries(app)}
    rows = await logged(app)
    assert [(r.delivery_id, r.number, r.status_code) for r in rows] == [
        (delivery_id, 1, code) for delivery_id, code in sorted(codes.items())
    ]
    assert sorted(code for code in codes.values() if code is not None) == [200] * 3 + [503] * 3


async def test_an_outcome_whose_worker_lost_the_lease_is_not_logged(app: FastAPI, api: Api) -> None:
    ctx: AppContext = app.state.ctx
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        stalled = deliverer_of(app, owner="stalled")
        alive = deliverer_of(app, owner="alive")
        now = ctx.clock.now()
        await stalled.dispatch(now)
        [job] = await stalled.claim(now, 10)
        advance(app, ctx.settings.delivery_timeout + LEASE_MARGIN_S + 1)
        assert (await alive.tick()).recorded == 1
        for outcome in (Outcome(status_code=500), Outcome(status_code=200)):
            late = Attempt(job=job, outcome=outcome, at=now, owner="stalled")
            assert await stalled.record([late]) == 0
    [row] = await logged(app)
    assert (row.number, row.status_code, row.attempted_at) == (1, 200, ctx.clock.now())


async def test_manual_retries_keep_only_the_newest_attempts(
    app: FastAPI, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(attempt_log, "ATTEMPT_LOG_SIZE", 3)
    configure(app, delivery_retry_delays="0")  # one attempt, then given up
    ctx: AppContext = app.state.ctx
    async with receiver() as hook:
        hook.answer("/hook", *[Answer(500, body=f"no {n}") for n in range(1, 6)])
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = deliverer_of(app)
        await worker.tick()
        for _ in range(4):
            async with ctx.db.write_sessions() as session, session.begin():
                [delivery] = (await session.scalars(select(Delivery))).all()
                await delivery_service.retry(session, delivery=delivery, now=ctx.clock.now())
            advance(app, 1)
            assert (await worker.tick()).recorded == 1
    [delivery] = await deliveries(app)
    assert (delivery.state, delivery.attempts) == ("failed", 5)
    rows = await logged(app)
    assert [(r.number, r.response_excerpt) for r in rows] == [
        (3, "no 3"),
        (4, "no 4"),
        (5, "no 5"),
    ]
    assert all(r.next_attempt_at is None for r in rows)  # each ended the delivery


async def test_attempts_go_with_their_delivery(app: FastAPI, api: Api) -> None:
    ctx: AppContext = app.state.ctx
    async with receiver() as hook:
        kept = await create_webhook(api, hook.url("/kept"))
        gone = await create_webhook(api, hook.url("/gone"))
        await create_reported_incident(api)
        worker = deliverer_of(app)
        await worker.tick()
        assert len(await logged(app)) == 2
        assert (await api.delete(f"{WEBHOOKS}/{gone['id']}")).status_code == 204
        [left] = await logged(app)
        assert left.delivery_id == (await deliveries(app))[0].id
        assert (await deliveries(app))[0].webhook_id == int(kept["id"])
        later = ctx.clock.now() + timedelta(days=ctx.settings.delivery_retention_days + 1)
        assert await worker.prune(later) == 1
    assert await deliveries(app) == []
    assert await logged(app) == []


async def test_send_test_logs_its_one_attempt(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        hook.answer("/hook", Answer(418, body="teapot"))
        webhook = await create_webhook(api, hook.url())
        tested = data(await api.post(f"{WEBHOOKS}/{webhook['id']}/test", {}))
    shown = tested["attributes"]
    assert (shown["state"], shown["status_code"], shown["attempts"]) == ("failed", 418, 1)
    [attempt] = shown["attempt_log"]
    assert (attempt["attempt"], attempt["status_code"], attempt["next_attempt_at"]) == (
        1,
        418,
        None,
    )
    assert attempt["response_excerpt"] == "teapot" and attempt["error"] == "HTTP 418"


async def test_an_error_is_logged_masked_as_the_delivery_keeps_it(app: FastAPI, api: Api) -> None:
    ctx: AppContext = app.state.ctx
    async with receiver() as hook:
        await create_webhook(api, hook.url())
        await create_reported_incident(api)
        worker = deliverer_of(app)
        now = ctx.clock.now()
        await worker.dispatch(now)
        [job] = await worker.claim(now, 10)
    # An exception's text naming a URL with its credentials, as a library may write it.
    said = "sending failed: could not reach https://ann:pa55word@example.com/x?key=k3y"
    attempt = Attempt(job=job, outcome=Outcome(error=said), at=now, owner=worker.owner)
    assert await worker.record([attempt]) == 1
    [delivery] = await deliveries(app)
    [row] = await logged(app)
    assert row.error == delivery.error
    assert row.error is not None and "example.com" in row.error
    assert "pa55word" not in row.error and "k3y" not in row.error


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_migration_0037_builds_the_models_table(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0036")
        upgrade(url)
        assert differences(url, ["delivery_attempts"]) == []
        command.downgrade(alembic_config(url), "0036")
        assert tables(url, {"delivery_attempts", "deliveries"}) == {"deliveries"}
        upgrade(url)
        assert tables(url, {"delivery_attempts"}) == {"delivery_attempts"}
        assert differences(url, ["delivery_attempts"]) == []
