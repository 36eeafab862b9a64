"""What an attempt's outcome does to its delivery and its webhook.

Success ends the delivery and clears the webhook's failing streak. A failure schedules the
next attempt from WATCHPOST_DELIVERY_RETRY_DELAYS (with jitter; never sooner than a 429 or
503's Retry-After), or gives the delivery up after the last one. 410 Gone disables the
webhook; so does failing without a success for WATCHPOST_DELIVERY_DISABLE_AFTER. A result
counts only while its worker still holds the lease: one that lost it (its worker stalled
past the lease, and another worker took the delivery over) is dropped. Every counted attempt
is logged (attempt_log.py) in the same transaction: one statement for the batch.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.delivery import attempt_log, extensions
from watchpost.delivery.claims import Job
from watchpost.delivery.models import Delivery
from watchpost.delivery.sending import Outcome, host_of
from watchpost.settings import Settings
from watchpost.webhooks.models import OutgoingWebhook

log = logging.getLogger("watchpost.delivery")

JITTER: Final = 0.1
"""A retry's delay varies by up to this share either way, so retries of many deliveries to a
receiver that failed at once do not come back at once."""
MAX_RETRY_AFTER_S: Final = 86_400.0
"""A Retry-After longer than this is read as this."""


@dataclass(frozen=True)
class Attempt:
    job: Job
    outcome: Outcome
    at: datetime
    owner: str


def next_delay(attempts: int, delays: Sequence[float], outcome: Outcome) -> float | None:
    """Seconds until the next attempt after `attempts` made (None: give up)."""
    if attempts >= len(delays):
        return None
    delay = delays[attempts] * random.uniform(1 - JITTER, 1 + JITTER)
    if outcome.retry_after is not None:
        delay = max(delay, min(outcome.retry_after, MAX_RETRY_AFTER_S))
    return delay


def _disable(webhook_id: int, reason: str, at: datetime) -> Any:
    return (
        update(OutgoingWebhook)
        .where(OutgoingWebhook.id == webhook_id, OutgoingWebhook.disabled_at.is_(None))
        .values(disabled_at=at, disabled_reason=reason)
        .execution_options(synchronize_session=False)
    )


def receiver(job: Job) -> str:
    """Who the delivery is for, for log lines (a webhook URL's path may hold credentials)."""
    extension = extensions.receiver(job.channel)
    if extension is not None:
        return extension.describe(job)
    if job.channel_id is not None:
        return f"notification channel {job.channel_id}"
    if job.channel in ("sms", "call"):
        told = f" for {job.recipient}" if job.recipient else ""
        return f"the {job.channel.upper()} service{told}"
    if job.webhook_id is None or job.url is None:
        return f"e-mail to {job.recipient}"
    return f"webhook {job.webhook_id} ({host_of(job.url)})"


async def _failed(session: AsyncSession, attempt: Attempt, settings: Settings) -> None:
    """The webhook's side of a failure: its streak, and whether it is disabled now."""
    job, outcome, at = attempt.job, attempt.outcome, attempt.at
    if job.webhook_id is None:
        return
    if outcome.status_code == 410:
        await session.execute(
            _disable(
                job.webhook_id,
                "the endpoint answered 410 Gone: it asked not to be called again",
                at,
            )
        )
        return
    await session.execute(
        update(OutgoingWebhook)
        .where(OutgoingWebhook.id == job.webhook_id, OutgoingWebhook.failing_since.is_(None))
        .values(failing_since=at)
        .execution_options(synchronize_session=False)
    )
    since = at - timedelta(seconds=settings.delivery_disable_after)
    await session.execute(
        _disable(
            job.webhook_id,
            f"every delivery failed for {settings.delivery_disable_after / 86400:g} days",
            at,
        ).where(OutgoingWebhook.failing_since <= since)
    )


_DELIVERIES = Delivery.__table__
assert isinstance(_DELIVERIES, Table)
_SUCCEEDED = (
    update(_DELIVERIES)
    .where(_DELIVERIES.c.id == bindparam("b_id"))
    .values(
        state="succeeded",
        attempts=bindparam("b_attempts"),
        last_attempt_at=bindparam("b_at"),
        delivered_at=bindparam("b_at"),
        updated_at=bindparam("b_at"),
        status_code=bindparam("b_status"),
        duration_ms=bindparam("b_ms"),
        response_excerpt=bindparam("b_excerpt"),
        error=None,
        next_attempt_at=None,
        lease_owner=None,
        lease_expires_at=None,
    )
)
"""One statement for a run of successes (executemany): a statement per attempt, built anew,
cost most of a busy worker's time."""


async def _succeeded(session: AsyncSession, attempts: Sequence[Attempt]) -> list[Attempt]:
    """Store a run of successes; those whose worker still held the lease count (returned)
    and clear their webhook's failing streak."""
    held = set(
        (
            await session.execute(
                select(Delivery.id, Delivery.lease_owner)
                .where(
                    Delivery.id.in_([attempt.job.delivery_id for attempt in attempts]),
                    Delivery.state == "pending",
                )
                .with_for_update()
            )
        ).tuples()
    )
    counted = [a for a in attempts if (a.job.delivery_id, a.owner) in held]
    if not counted:
        return []
    await session.execute(
        _SUCCEEDED,
        [
            {
                "b_id": a.job.delivery_id,
                "b_attempts": a.job.attempts + 1,
                "b_at": a.at,
                "b_status": a.outcome.status_code,
                "b_ms": a.outcome.duration_ms,
                "b_excerpt": a.outcome.excerpt,
            }
            for a in counted
        ],
    )
    await session.execute(
        update(OutgoingWebhook)
        .where(
            OutgoingWebhook.id.in_({a.job.webhook_id for a in counted if a.job.webhook_id}),
            OutgoingWebhook.failing_since.is_not(None),
        )
        .values(failing_since=None)
        .execution_options(synchronize_session=False)
    )
    return counted


async def record(session: AsyncSession, attempts: Sequence[Attempt], *, settings: Settings) -> int:
    """Store each attempt's outcome, in order, and log the attempts that counted (their worker
    still held the lease); how many counted. Consecutive successes are stored together."""
    logged: list[dict[str, Any]] = []
    run: list[Attempt] = []

    async def successes() -> None:
        for a in await _succeeded(session, run):
            logged.append(attempt_log.row(a.job, a.outcome, a.at, None))
        run.clear()

    for attempt in attempts:
        if attempt.outcome.ok:
            run.append(attempt)
            continue
        if run:
            await successes()
        failure = await _record_one(session, attempt, settings)
        if failure is not None:
            logged.append(failure)
    if run:
        await successes()
    await attempt_log.write(session, logged)
    return len(logged)


async def _record_one(
    session: AsyncSession, attempt: Attempt, settings: Settings
) -> dict[str, Any] | None:
    """Store a failed attempt's outcome: its next attempt or its end, and the webhook's side;
    its log row, or None when it did not count."""
    job, outcome, at = attempt.job, attempt.outcome, attempt.at
    made = job.attempts + 1
    values: dict[str, Any] = {
        "attempts": made,
        "last_attempt_at": at,
        "status_code": outcome.status_code,
        "duration_ms": outcome.duration_ms,
        "response_excerpt": outcome.excerpt,
        "error": outcome.error,
        "lease_owner": None,
        "lease_expires_at": None,
        "updated_at": at,
    }
    delay = None
    if outcome.final or outcome.status_code == 410:
        values.update(state="failed", next_attempt_at=None)
    else:
        delay = next_delay(made, settings.retry_delays, outcome)
        if delay is None:
            values.update(state="failed", next_attempt_at=None)
        else:
            values.update(next_attempt_at=at + timedelta(seconds=delay))
    result: Any = await session.execute(
        update(Delivery)
        .where(
            Delivery.id == job.delivery_id,
            Delivery.lease_owner == attempt.owner,
            Delivery.state == "pending",
        )
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if not result.rowcount:
        return None
    await _failed(session, attempt, settings)
    error = outcome.error or ""
    if job.url is not None:
        error = error.replace(job.url, host_of(job.url))
    log.info(
        "delivery %s of event %s to %s failed, attempt %s: %s; %s",
        job.delivery_id,
        job.event_id,
        receiver(job),
        made,
        error[:300],
        "given up" if delay is None else f"next attempt in {delay:.0f} s",
    )
    return attempt_log.row(job, outcome, at, values["next_attempt_at"])


async def cancel(session: AsyncSession, jobs: Sequence[Job], *, owner: str, at: datetime) -> None:
    """End the deliveries of disabled webhooks unsent."""
    for job in jobs:
        await session.execute(
            update(Delivery)
            .where(Delivery.id == job.delivery_id, Delivery.lease_owner == owner)
            .values(
                state="cancelled",
                next_attempt_at=None,
                lease_owner=None,
                lease_expires_at=None,
                error=f"not sent: the webhook is disabled ({job.disabled_reason})",
                updated_at=at,
            )
            .execution_options(synchronize_session=False)
        )
