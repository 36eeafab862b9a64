"""The delivery worker: dispatch new events, claim due deliveries, send them, record outcomes.

`tick(now)` is one whole pass, awaited to the end (what tests drive with a FrozenClock).
`run_forever()` is production, in `watchpost serve` and in every `watchpost worker`: it
keeps up to `delivery_concurrency` requests in flight, records finished attempts in batches,
and looks for new work every `delivery_poll_interval` seconds (at once after a full batch, and
as soon as a transaction of its own process that recorded an event commits: outbox.py).
Old events and their deliveries are pruned hourly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import delete

from watchpost.context import AppContext
from watchpost.delivery import (
    chat,
    claims,
    dispatch,
    escalation,
    extensions,
    mail,
    outbox,
    pagerduty,
    phone_targets,
    results,
    sending,
)
from watchpost.delivery.claims import Job
from watchpost.delivery.models import DeliveryEvent
from watchpost.delivery.results import Attempt
from watchpost.delivery.sending import Outcome
from watchpost.leases import new_owner
from watchpost.links import acknowledge_url
from watchpost.oncall import changes

log = logging.getLogger("watchpost.delivery")

LEASE_MARGIN_S: Final = 15.0
"""A lease lasts the request's timeout plus this: time to record the outcome."""
PRUNE_EVERY_S: Final = 3600.0
SHUTDOWN_GRACE_S: Final = 5.0


@dataclass(frozen=True)
class TickReport:
    """What one tick did: deliveries made from new events, attempts sent, outcomes kept."""

    dispatched: int
    sent: int
    recorded: int


class Deliverer:
    """One process's delivery worker: owner of its leases."""

    def __init__(
        self, ctx: AppContext, *, incidents: escalation.Incidents, owner: str | None = None
    ) -> None:
        self.ctx = ctx
        self.incidents = incidents
        """What escalation steps do to incidents (incidents.policy_actions)."""
        self.settings = ctx.settings
        self.owner = owner or new_owner()
        self._slots = asyncio.Semaphore(self.settings.delivery_concurrency)
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._buffer: list[Attempt] = []
        self._running: set[asyncio.Task[None]] = set()
        self._pruned_at: float | None = None
        self._backlog = False
        """Whether the last pass left due deliveries behind (its claim came back full)."""

    async def send(self, job: Job, *, now: datetime) -> Outcome:
        extension = extensions.receiver(job.channel)
        if extension is not None:
            return await extension.send(self.ctx, job, now)
        if job.channel == "apprise":
            assert job.channel_url_encrypted is not None
            return await chat.send(
                job.channel_url_encrypted,
                job.payload,
                box=self.ctx.box,
                acknowledge_url=acknowledge_url(
                    self.settings, self.ctx.box, job.subject_id, f"channel {job.channel_id}"
                ),
            )
        if job.channel in chat.SERVICES:
            person = None
            if job.recipient is not None:  # a person told (else: the URL's own recipients)
                person = await phone_targets.person(self.ctx, job.recipient)
                if person is None:
                    return Outcome(error="not sent: nobody has that address now", final=True)
            return await chat.send_to_service(
                job.channel,
                job.payload,
                settings=self.settings,
                person=person,
                acknowledge_url=acknowledge_url(
                    self.settings, self.ctx.box, job.subject_id, job.channel.upper()
                ),
            )
        if job.channel == "pagerduty":
            return await pagerduty.send(
                job,
                events_url=self.settings.pagerduty_events_url,
                now=now,
                timeout=self.settings.delivery_timeout,
            )
        if job.channel == "email":
            assert job.recipient is not None
            message = mail.message(
                job.payload,
                recipient=job.recipient,
                sender=self.settings.mail_from,
                acknowledge_url=acknowledge_url(
                    self.settings, self.ctx.box, job.subject_id, job.recipient
                ),
            )
            return await mail.send(message, settings=self.settings)
        return await sending.send(
            job, box=self.ctx.box, now=now, timeout=self.settings.delivery_timeout
        )

    # ------------------------------------------------------------------ the steps

    async def dispatch(self, now: datetime) -> int:
        """Changes of who is on call into events, new events into deliveries, then the due
        steps of escalation policies."""
        async with self.ctx.db.write_sessions() as session, session.begin():
            limit = self.settings.delivery_claim_batch
            for change in await changes.due_changes(session, now=now, limit=limit):
                await outbox.record(
                    session,
                    team_id=change.team_id,
                    trigger_type="on_call_change",
                    event="changed",
                    data=change.data,
                    extra={"included": change.included},
                    at=now,
                )
            await extensions.due(session, now, limit)
            made = await dispatch.dispatch(
                session,
                now=now,
                limit=self.settings.delivery_claim_batch,
                first_delay=self.settings.retry_delays[0],
            )
            await escalation.escalate(
                session,
                now=now,
                limit=self.settings.delivery_claim_batch,
                incidents=self.incidents,
            )
        return made

    async def claim(self, now: datetime, limit: int) -> list[Job]:
        """Lease up to `limit` due deliveries; those of disabled webhooks end unsent."""
        until = now + timedelta(seconds=self.settings.delivery_timeout + LEASE_MARGIN_S)
        async with self.ctx.db.write_sessions() as session, session.begin():
            jobs = await claims.claim(session, owner=self.owner, now=now, until=until, limit=limit)
            disabled = [job for job in jobs if job.disabled_reason is not None]
            if disabled:
                await results.cancel(session, disabled, owner=self.owner, at=now)
        return [job for job in jobs if job.disabled_reason is None]

    async def attempt(self, job: Job) -> Attempt:
        """One attempt, whatever its channel: an exception while sending is a failed attempt
        like any other (recorded, retried on the schedule), never one that is lost."""
        async with self._slots:
            now = self.ctx.clock.now()
            try:
                outcome = await self.send(job, now=now)
            except Exception as exc:
                log.exception("delivery %s: sending crashed", job.delivery_id)
                outcome = Outcome(error=f"sending failed: {type(exc).__name__}: {exc}"[:500])
        return Attempt(job=job, outcome=outcome, at=self.ctx.clock.now(), owner=self.owner)

    async def record(self, attempts: list[Attempt]) -> int:
        if not attempts:
            return 0
        async with self.ctx.db.write_sessions() as session, session.begin():
            return await results.record(session, attempts, settings=self.settings)

    async def prune(self, now: datetime) -> int:
        """Delete events older than the retention, with their deliveries."""
        cutoff = now - timedelta(days=self.settings.delivery_retention_days)
        async with self.ctx.db.write_sessions() as session, session.begin():
            result = await session.execute(
                delete(DeliveryEvent)
                .where(DeliveryEvent.created_at < cutoff)
                .execution_options(synchronize_session=False)
            )
        return int(getattr(result, "rowcount", 0) or 0)

    async def tick(self, now: datetime | None = None) -> TickReport:
        """One whole pass at `now` (default: the clock): dispatch, claim, send all, record."""
        now = now or self.ctx.clock.now()
        dispatched = await self.dispatch(now)
        jobs = await self.claim(now, self.settings.delivery_claim_batch)
        attempts = await asyncio.gather(*(self.attempt(job) for job in jobs))
        recorded = await self.record(list(attempts))
        return TickReport(dispatched=dispatched, sent=len(attempts), recorded=recorded)

    # ------------------------------------------------------------------ production

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    async def _attempt_and_buffer(self, job: Job) -> None:
        self._buffer.append(await self.attempt(job))
        # Half the slots free while more is due: record and claim now, not at the next poll
        # (a backlog would otherwise go at most one claim batch per poll interval).
        if self._backlog and len(self._running) - 1 <= self.settings.delivery_concurrency // 2:
            self._wake.set()

    async def _flush(self) -> None:
        while self._buffer:
            batch = self._buffer[:500]
            del self._buffer[: len(batch)]
            with self.ctx.db.outage.logged(
                log, "recording %d delivery attempts failed", len(batch)
            ):
                await self.record(batch)

    async def _pass(self) -> bool:
        """Dispatch and claim what there is room for; whether a batch came back full."""
        now = self.ctx.clock.now()
        if self._pruned_at is None or time.monotonic() - self._pruned_at >= PRUNE_EVERY_S:
            self._pruned_at = time.monotonic()
            await self.prune(now)
        # One read decides whether to open write transactions at all: an idle pass costs a
        # statement, not two write locks (on SQLite, every writer queues behind one).
        async with self.ctx.db.read_sessions() as session:
            waiting = await claims.work_waiting(session, now=now)
        busy = (
            waiting.undispatched
            or waiting.steps_due
            or waiting.calendars_due
            or waiting.receivers_due
        )
        dispatched = await self.dispatch(now) if busy else 0
        room = self.settings.delivery_concurrency - len(self._running)
        limit = min(room, self.settings.delivery_claim_batch)
        more = waiting.due or waiting.steps_due or dispatched
        jobs = await self.claim(now, limit) if room and more else []
        self._backlog = not room or len(jobs) >= limit
        for job in jobs:
            task = asyncio.create_task(self._attempt_and_buffer(job))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        batch = self.settings.delivery_claim_batch
        return dispatched >= batch or len(jobs) >= batch

    async def run_forever(self) -> None:
        interval = self.settings.delivery_poll_interval
        loop = asyncio.get_running_loop()

        def wake() -> None:  # from whichever thread commits (tests run several loops)
            loop.call_soon_threadsafe(self._wake.set)

        stop_hearing = outbox.when_recorded(wake)
        try:
            await self._run(interval)
        finally:
            stop_hearing()

    async def _run(self, interval: float) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            busy = False
            with self.ctx.db.outage.logged(log, "delivery pass failed"):
                busy = await self._pass()
                self.ctx.db.outage.succeeded()
            await self._flush()
            if busy:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), interval)
        if self._running:
            _, pending = await asyncio.wait(self._running, timeout=SHUTDOWN_GRACE_S)
            for task in pending:
                task.cancel()
        await self._flush()
        await sending.CLIENT.aclose()
