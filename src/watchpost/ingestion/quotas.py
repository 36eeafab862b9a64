"""Each source's daily event quota, counted in the database: every process and every restart
sees the same day's count.

A process counts what it accepts in memory and adds that to the source's row for the UTC day
(`source_quota_usage`) at most every SYNC seconds by the clock, reading back the total that all
processes have added. So the quota holds across restarts and processes to within what they
accept in SYNC seconds: a process that ends loses at most that much of its count, and N
processes together may pass the quota by at most what they accept in that time. While the
database cannot be reached, a process goes on counting by itself and tries again SYNC seconds
later (ingestion does not stop because the database is away).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, cast

from sqlalchemy import Table, delete, select
from sqlalchemy.exc import SQLAlchemyError

from watchpost.db.session import Database
from watchpost.db.upsert import Upsert
from watchpost.sources.models import SourceQuotaUsage

SYNC: Final = timedelta(seconds=2)
"""How often a process adds its count to a source's day row and reads the total back."""

log = logging.getLogger(__name__)

_table = cast(Table, SourceQuotaUsage.__table__)
_add = Upsert(
    _table,
    keys=["source_id", "day"],
    update=lambda excluded: {"events": _table.c.events + excluded.events},
)


@dataclass(slots=True)
class _Count:
    """One source's count for one UTC day, as this process knows it."""

    day: int
    """The day's ordinal (proleptic Gregorian, UTC)."""
    shared: int = 0
    """The day's total in the database when last read, with what this process added then."""
    pending: int = 0
    """Accepted here since, not yet added."""
    synced: datetime | None = None
    """When last added and read (None: not yet this day)."""


class Quotas:
    """Events each source may send a UTC day (0: no quota): `per_day`, or the source's own in
    `per_source`; counted in `db` (None: in this process only)."""

    def __init__(
        self, per_day: int, per_source: Mapping[int, int] | None = None, db: Database | None = None
    ) -> None:
        self.per_day = per_day
        self.per_source = dict(per_source or {})
        self.db = db
        self._counts: dict[int, _Count] = {}

    def of(self, source_id: int) -> int:
        return self.per_source.get(source_id, self.per_day)

    async def take(self, source_id: int, count: int, now: datetime) -> float:
        """Counts `count` events of the source: 0.0 when they fit in today's quota, else the
        seconds until the next UTC day (and nothing is counted)."""
        per_day = self.of(source_id)
        if per_day <= 0 or count <= 0:
            return 0.0
        day = now.toordinal()
        counted = self._counts.get(source_id)
        if counted is None or counted.day != day:  # yesterday's count no longer matters
            counted = self._counts[source_id] = _Count(day)
        if self.db is not None and (
            counted.synced is None or not counted.synced <= now < counted.synced + SYNC
        ):
            await self._sync(self.db, source_id, counted, now)
        if counted.shared + counted.pending + count > per_day:
            midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time())
            return (midnight.replace(tzinfo=now.tzinfo) - now).total_seconds()
        counted.pending += count
        return 0.0

    async def _sync(self, db: Database, source_id: int, counted: _Count, now: datetime) -> None:
        """Adds what this process accepted to the day's row and reads the total back. The
        pending count moves to `shared` before the first await, so a request arriving
        meanwhile neither starts another sync nor has its events added twice."""
        first = counted.synced is None
        adding, counted.pending = counted.pending, 0
        counted.shared += adding
        counted.synced = now
        try:
            async with db.write_sessions() as session, session.begin():
                if first:  # the source's rows of days before yesterday are of no more use
                    await session.execute(
                        delete(SourceQuotaUsage).where(
                            SourceQuotaUsage.source_id == source_id,
                            SourceQuotaUsage.day < counted.day - 1,
                        )
                    )
                if adding:
                    row = {"source_id": source_id, "day": counted.day, "events": adding}
                    await _add(session, [row])
                total = await session.scalar(
                    select(SourceQuotaUsage.events).where(
                        SourceQuotaUsage.source_id == source_id,
                        SourceQuotaUsage.day == counted.day,
                    )
                )
        except (SQLAlchemyError, OSError) as exc:
            counted.shared -= adding
            counted.pending += adding
            log.warning(
                "source %s: the daily quota's count was not saved (%s); counting in this "
                "process and trying again in %s s",
                source_id,
                type(exc).__name__,
                SYNC.total_seconds(),
            )
            return
        # what other requests of this process accepted while this ran stays pending
        counted.shared = int(total or 0)
