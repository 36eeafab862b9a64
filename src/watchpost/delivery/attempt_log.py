"""The attempts of deliveries: one row per finished attempt, written with the delivery's
outcome (results.record: the rows of a whole batch in one upsert, in its transaction) and
read for the delivery logs (the attempts of a page of deliveries in one statement).

A delivery keeps its newest ATTEMPT_LOG_SIZE attempts (models.DeliveryAttempt: a ring of
slots, so a delivery retried by hand again and again never grows its log past that).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any, Final, cast

from sqlalchemy import Table, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.upsert import Upsert
from watchpost.delivery.claims import Job
from watchpost.delivery.models import ATTEMPT_LOG_SIZE, DeliveryAttempt
from watchpost.delivery.sending import Outcome

_VALUES: Final = (
    "team_id",
    "number",
    "attempted_at",
    "status_code",
    "duration_ms",
    "response_excerpt",
    "error",
    "next_attempt_at",
)
_LOG: Final = Upsert(
    cast(Table, DeliveryAttempt.__table__),
    keys=("delivery_id", "slot"),
    update=lambda new: {name: getattr(new, name) for name in _VALUES},
)


def row(job: Job, outcome: Outcome, at: datetime, next_at: datetime | None) -> dict[str, Any]:
    """The log row of the attempt `job` was leased for: its outcome at `at`, and the attempt
    it scheduled (None: it ended the delivery)."""
    number = job.attempts + 1
    return {
        "delivery_id": job.delivery_id,
        "slot": number % ATTEMPT_LOG_SIZE,
        "team_id": job.team_id,
        "number": number,
        "attempted_at": at,
        "status_code": outcome.status_code,
        "duration_ms": outcome.duration_ms,
        "response_excerpt": outcome.excerpt,
        "error": outcome.error,
        "next_attempt_at": next_at,
    }


async def write(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    """Log a batch's counted attempts: one statement (executemany) for them all."""
    # One row per slot: a worker can count two outcomes of one attempt number only when the
    # same owner claimed the delivery twice; the later one stands, as on the delivery.
    unique = {(r["delivery_id"], r["slot"]): r for r in rows}
    await _LOG(session, list(unique.values()))


async def attempts_of(
    session: AsyncSession, delivery_ids: Collection[int]
) -> dict[int, list[DeliveryAttempt]]:
    """The logged attempts of these deliveries, newest first, in one statement."""
    found: dict[int, list[DeliveryAttempt]] = {delivery_id: [] for delivery_id in delivery_ids}
    if not found:
        return found
    for attempt in await session.scalars(
        select(DeliveryAttempt)
        .where(DeliveryAttempt.delivery_id.in_(found))
        .order_by(DeliveryAttempt.delivery_id, DeliveryAttempt.number.desc())
    ):
        found[attempt.delivery_id].append(attempt)
    return found
