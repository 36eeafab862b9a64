"""The engine: claim due checks, run them under a concurrency cap, write results in batches.

`tick(now)` is one whole cycle (claim → run → write → sweeps), awaited to the end: what
tests drive with a FrozenClock. `run_forever()` is production: a claimer keeps up to
`engine_concurrency` checks running, a writer flushes finished ones every
`engine_flush_interval` (or at `engine_write_batch` results), sweeps run each poll, and a
renewer extends the leases of every check still in flight (claimed, running or waiting to
be written) every third of `engine_lease_margin`, so only a dead worker's leases expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from watchpost.context import AppContext
from watchpost.db.outage import is_unavailable
from watchpost.engine import checks
from watchpost.engine.checked_rows import KINDS
from watchpost.engine.checks import Job, Outcome
from watchpost.engine.claims import Claim, by_kind, claim_due, next_due_at, release, renew
from watchpost.engine.schedule import GROUPED_S
from watchpost.engine.sweeps import Sweep, default_sweeps, due
from watchpost.engine.writer import WriteReport, write_outcomes
from watchpost.leases import new_owner
from watchpost.probes.http import CLIENT
from watchpost.probes.running import Runner

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_S = 5.0
"""On stop, running checks get this long to finish before they are cancelled."""

OUTAGE_BACKOFF_MAX_S = 30.0
"""Longest wait between two passes while the database is unreachable."""


@dataclass
class TickReport:
    claimed: int = 0
    applied: int = 0
    discarded: int = 0
    swept: int = 0
    claims: list[Claim] = field(default_factory=list)


class Engine:
    """One engine process's worker: owner of its leases."""

    def __init__(
        self,
        ctx: AppContext,
        *,
        owner: str | None = None,
        runners: dict[str, Runner] | None = None,
        sweeps: Sequence[Sweep] | None = None,
    ) -> None:
        self.ctx = ctx
        self.settings = ctx.settings
        self.owner = owner or new_owner()
        self.runners = dict(checks.DEFAULT_RUNNERS if runners is None else runners)
        self.sweeps = default_sweeps() if sweeps is None else list(sweeps)
        self._slots = asyncio.Semaphore(self.settings.engine_concurrency)
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._buffer: list[Outcome] = []
        self._running: set[asyncio.Task[None]] = set()
        self._leased: dict[tuple[str, int], Claim] = {}
        """The checks in flight: claimed and not yet written. Their leases are renewed."""
        self._failed_cycles = 0  # passes in a row that found the database unreachable
        self._swept_at: float | None = None  # time.monotonic() of run_forever's last sweeps
        self._due_at: datetime | None = None  # the earliest due time, as last read
        self.shutdown_grace = SHUTDOWN_GRACE_S
        self.lease = timedelta(seconds=self.settings.engine_lease_margin)
        self.renew_every = self.settings.engine_lease_margin / 3
        """A lease survives two missed renewals."""

    # ------------------------------------------------------------------ the steps

    async def claim(self, now: datetime, limit: int, due_by: datetime | None = None) -> list[Job]:
        """Lease up to `limit` checks due by `due_by` (default: now; monitors first) and
        prepare them to run; at most OFF_SCHEDULE_PER_CLAIM of them off their schedule
        (engine/schedule.py).

        The leases run from `now`. When claiming and preparing took a third of a lease or
        more (a stalled process, a slow database), they are renewed before any check starts,
        and only the checks still held run: a lease that ran out meanwhile may have been
        taken over by another worker, which runs that check instead."""
        async with self.ctx.db.write_sessions() as session, session.begin():
            claimed = await claim_due(
                session,
                owner=self.owner,
                now=now,
                limit=limit,
                lease=self.lease,
                settings=self.settings,
                due_by=due_by,
            )
        jobs = self._prepare(claimed, now)
        at = self.ctx.clock.now()
        if jobs and (at - now).total_seconds() >= self.renew_every:
            held = await self._renew([job.claim for job in jobs], at)
            lost = [job.claim for job in jobs if (job.claim.kind, job.claim.id) not in held]
            for item in lost:
                self._forget(item)
            if lost:
                took = (at - now).total_seconds()
                log.warning("a claim took %.1f s; %d of its checks left to others", took, len(lost))
            jobs = [job for job in jobs if (job.claim.kind, job.claim.id) in held]
        return jobs

    def _prepare(self, claimed: list[Claim], now: datetime) -> list[Job]:
        """The jobs of new claims, each now in flight (its lease renewed from here on)."""
        jobs = []
        for item in claimed:
            key = (item.kind, item.id)
            running = self._leased.get(key)
            if running is not None and running.due == item.due:
                # Our own lease had lapsed and nobody took it: this is the same check, still
                # running here; the claim just renewed its lease.
                continue
            timeout = KINDS[item.kind].timeout_s(item.row, self.settings)
            try:
                job = checks.prepare(item, box=self.ctx.box, timeout=timeout, now=now)
            except Exception:
                # Not renewed, so its lease expires and a later pass tries again.
                log.exception("preparing %s %s failed", item.kind, item.id)
                continue
            self._leased[key] = item
            jobs.append(job)
        return jobs

    async def execute(self, job: Job) -> Outcome:
        """Run one job under the concurrency cap."""
        async with self._slots:
            result = await checks.run(job, self.runners[job.claim.kind])
        return Outcome(
            claim=job.claim,
            finished_at=self.ctx.clock.now(),
            result=result,
            maintenance_until=job.maintenance_until,
        )

    async def write(self, outcomes: Sequence[Outcome]) -> WriteReport:
        """Write results in batches of engine_write_batch, one transaction each."""
        total = WriteReport()
        size = self.settings.engine_write_batch
        for start in range(0, len(outcomes), size):
            batch = outcomes[start : start + size]
            try:
                async with self.ctx.db.write_sessions() as session, session.begin():
                    report = await write_outcomes(session, batch, settings=self.settings)
            finally:
                # Written or failed, these are no longer in flight: a failed batch's leases
                # are not renewed, so they expire and the checks run again.
                for outcome in batch:
                    self._forget(outcome.claim)
            total.applied += report.applied
            total.discarded += report.discarded
        return total

    def _forget(self, item: Claim) -> None:
        """Stop renewing the lease of `item` (not of a newer claim of the same row)."""
        key = (item.kind, item.id)
        if self._leased.get(key) is item:
            del self._leased[key]

    async def renew(self, now: datetime) -> int:
        """Extend the leases of every check in flight to `now` + the margin, one UPDATE per
        kind; how many leases this engine still held."""
        return len(await self._renew(list(self._leased.values()), now))

    async def _renew(self, claims: list[Claim], now: datetime) -> set[tuple[str, int]]:
        """Extend the leases of `claims` to `now` + the margin; the (kind, id) still held."""
        held: set[tuple[str, int]] = set()
        if not claims:
            return held
        async with self.ctx.db.write_sessions() as session, session.begin():
            for kind, ids in by_kind(claims).items():
                kept = await renew(
                    session, kind=kind, owner=self.owner, ids=ids, until=now + self.lease
                )
                held.update((kind, object_id) for object_id in kept)
        return held

    async def sweep(self, now: datetime) -> int:
        handled = 0
        for sweep in self.sweeps:
            if not due(sweep, now):
                continue  # no transaction for a sweep that would do nothing
            try:
                async with self.ctx.db.write_sessions() as session, session.begin():
                    handled += await sweep(session, now=now)
            except Exception as exc:
                if is_unavailable(exc):
                    raise  # the cycle logs the outage once and backs off
                log.exception("sweep %s failed", getattr(sweep, "__qualname__", sweep))
        return handled

    async def tick(self, now: datetime | None = None) -> TickReport:
        """One full cycle at `now` (default: the clock): claim, run all, write, sweep."""
        now = now or self.ctx.clock.now()
        jobs = await self.claim(now, self.settings.engine_claim_batch)
        outcomes = await asyncio.gather(*(self.execute(job) for job in jobs))
        written = await self.write(outcomes)
        swept = await self.sweep(now)
        return TickReport(
            claimed=len(jobs),
            applied=written.applied,
            discarded=written.discarded,
            swept=swept,
            claims=[job.claim for job in jobs],
        )

    # ------------------------------------------------------------------ production

    def stop(self) -> None:
        """Ask run_forever to finish: no new claims, running checks get a grace period."""
        self._stopping.set()
        self._wake.set()

    async def _run_and_buffer(self, job: Job) -> None:
        early = (job.claim.due - self.ctx.clock.now()).total_seconds()
        if early > 0:  # claimed ahead (engine_claim_ahead): it starts at its due time
            await asyncio.sleep(early)
        try:
            outcome = await self.execute(job)
        except Exception:
            log.exception("%s %s: check crashed", job.claim.kind, job.claim.id)
            self._forget(job.claim)  # its lease expires and the check runs again
            return
        self._buffer.append(outcome)
        if len(self._buffer) >= self.settings.engine_write_batch:
            self._wake.set()

    async def _flush(self) -> None:
        while self._buffer:
            batch = self._buffer[: self.settings.engine_write_batch]
            del self._buffer[: len(batch)]
            # On failure the leases run out and another pass (or worker) redoes these checks.
            with self.ctx.db.outage.logged(log, "writing %d check results failed", len(batch)):
                await self.write(batch)

    async def _writer(self, done: asyncio.Event) -> None:
        interval = self.settings.engine_flush_interval
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), interval)
            await self._flush()

    async def _renewer(self, done: asyncio.Event) -> None:
        """Renew the leases in flight every `renew_every` seconds until `done`."""
        last = time.monotonic()
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), self.renew_every)
            if done.is_set():
                return
            try:
                await self.renew(self.ctx.clock.now())
            except Exception as exc:
                # An outage is logged once (the leases may lapse meanwhile).
                if not self.ctx.db.outage.report(exc):
                    log.exception("renewing %d leases failed; retrying", len(self._leased))
                continue
            renewed = time.monotonic()
            gap, last = renewed - last, renewed
            margin = self.lease.total_seconds()
            if gap > margin:
                # This process (or the database) stalled for longer than a lease: other
                # workers may have taken some of its checks over.
                log.warning("leases renewed %.1f s apart, more than the %g s margin", gap, margin)

    async def cycle(self) -> float:
        """One pass of run_forever: claim what is free, start it, sweep. Returns how long to
        wait before the next pass.

        A pass with nothing due costs one read: the earliest due time decides whether to
        claim and how long to sleep. Sweeps run at most once per poll interval, however
        often due checks wake the loop.

        While the database is unreachable a pass fails at once; the outage is logged once
        (db/outage.py, no traceback) and the wait doubles from the poll interval up to
        OUTAGE_BACKOFF_MAX_S, so a long outage costs neither log lines nor CPU. The first
        pass that works logs the end of the outage and polls normally again.
        """
        poll = self.settings.engine_poll_interval
        now = self.ctx.clock.now()
        try:
            wait = await self._claim_due(now, poll)
            if self._sweep_due():
                await self.sweep(now)
        except Exception as exc:
            if not self.ctx.db.outage.report(exc):
                log.exception("engine cycle failed; retrying")
                return poll
            self._failed_cycles += 1
            return float(min(poll * 2.0**self._failed_cycles, OUTAGE_BACKOFF_MAX_S))
        self._failed_cycles = 0
        self.ctx.db.outage.succeeded()
        return wait

    async def _claim_due(self, now: datetime, poll: float) -> float:
        """Claim and start what is due (if slots are free); how long to wait before looking
        again: at once when the claim was full, else until the next due time (at most poll).

        The earliest due time is read only when the last read did not already say it has
        come. A pass claims what falls due within `engine_claim_ahead` too (each check waits
        for its due time), so checks due close together are claimed in one pass and mostly
        written in one batch (with engine_claim_ahead 0 it waits GROUPED_S past instead)."""
        free = min(
            self.settings.engine_concurrency - len(self._running), self.settings.engine_claim_batch
        )
        if free <= 0:
            return poll
        ahead = timedelta(seconds=self.settings.engine_claim_ahead)
        if self._due_at is None or now < self._due_at:
            self._due_at = await self._next_due_at(now)
        if self._due_at is not None and self._due_at <= now:
            jobs = await self.claim(now, free, now + ahead)
            for job in jobs:
                task = asyncio.create_task(self._run_and_buffer(job))
                self._running.add(task)
                task.add_done_callback(self._running.discard)
            if len(jobs) == free:
                return 0.0  # more may be due right now
            if not jobs:
                # What is due is held by another transaction (or already running here):
                # look again after a poll, not at once.
                self._due_at = None
                return poll
            self._due_at = await self._next_due_at(now)
        if self._due_at is None:
            return poll
        due_in = (self._due_at - now).total_seconds()
        late = 0.0 if ahead else GROUPED_S
        return max(0.0, min(poll, due_in + late))

    async def _next_due_at(self, now: datetime) -> datetime | None:
        async with self.ctx.db.read_sessions() as session:
            return await next_due_at(session, now=now)

    def _sweep_due(self) -> bool:
        """At most one round of sweeps per poll interval (checks may wake the loop often)."""
        at = time.monotonic()
        if self._swept_at is not None and at - self._swept_at < self.settings.engine_poll_interval:
            return False
        self._swept_at = at
        return True

    async def _claimer(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            wait = await self.cycle()
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
            else:
                await asyncio.sleep(0)

    async def run_forever(self) -> None:
        """Claim and run checks until stop(); then let running ones finish, write, release."""
        log.info("check engine %s started", self.owner)
        writer_done, leases_done = asyncio.Event(), asyncio.Event()
        writer = asyncio.create_task(self._writer(writer_done))
        renewer = asyncio.create_task(self._renewer(leases_done))
        try:
            await self._claimer()
        finally:
            if self._running and self.shutdown_grace > 0:
                await asyncio.wait(set(self._running), timeout=self.shutdown_grace)
            for task in list(self._running):
                task.cancel()
            await asyncio.gather(*self._running, return_exceptions=True)
            self._running.clear()
            writer_done.set()
            await asyncio.gather(writer, return_exceptions=True)
            await self._flush()
            leases_done.set()
            await asyncio.gather(renewer, return_exceptions=True)
            await self.release_all()
            await CLIENT.aclose()
            log.info("check engine %s stopped", self.owner)

    async def release_all(self) -> None:
        """Give back every lease this engine still holds, so others take them at once."""
        held = by_kind(self._leased.values())
        self._leased.clear()
        with self.ctx.db.outage.logged(log, "releasing leases failed; they expire on their own"):
            async with self.ctx.db.write_sessions() as session, session.begin():
                for kind, ids in held.items():
                    await release(session, kind=kind, owner=self.owner, ids=ids)
