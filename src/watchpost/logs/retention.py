"""Retention of log events and metrics: which day partitions go, and the periodic task.

A partition holds one UTC day. A source's events of day D expire once D ends more than the
source's retention days ago (D + 1 day <= now - days): an event is kept at least its retention
and goes within a day after it. A partition whose every source expired is dropped whole;
otherwise the expired sources' rows are deleted from it. A source missing from the mapping
(deleted since) gets the longest retention of the mapping.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import text

from watchpost.db.outage import is_unavailable

if TYPE_CHECKING:
    from collections.abc import Callable

    from watchpost.clock import Clock
    from watchpost.db.session import Database
    from watchpost.logs.store import LogStore

log = logging.getLogger("watchpost.logs.retention")

INTERVAL = 3600.0
"""Seconds between two rounds of retention."""


def expired_partitions(
    day: date, counts: Mapping[int, int], now: datetime, retention: Mapping[int, int]
) -> tuple[bool, list[int]]:
    """(drop the whole partition?, else the sources whose rows of that day go)."""
    longest = max(retention.values(), default=None)
    end = datetime.combine(day + timedelta(days=1), time(), tzinfo=now.tzinfo)
    expired = []
    for source_id in counts:
        days = retention.get(source_id, longest)
        if days is not None and end <= now - timedelta(days=days):
            expired.append(source_id)
    whole = bool(counts) and len(expired) == len(counts)
    return whole, [] if whole else sorted(expired)


# The sources table by name: the logs package stays below the sources package.
RETENTIONS = text("SELECT id, logs_retention, metrics_retention FROM sources")


async def retention_days(db: Database) -> tuple[dict[int, int], dict[int, int]]:
    """Every source's (logs_retention, metrics_retention) days, by source id."""
    async with db.read_sessions() as session:
        rows = (await session.execute(RETENTIONS)).all()
    return {int(r[0]): int(r[1]) for r in rows}, {int(r[0]): int(r[2]) for r in rows}


async def enforce_retention(db: Database, store: LogStore, clock: Clock) -> tuple[int, int]:
    """One round at the clock's now: (log events, metric samples) dropped."""
    logs, metrics = await retention_days(db)
    now = clock.now()
    return await store.drop_expired(now, logs), await store.drop_expired_metrics(now, metrics)


class RetentionLoop:
    """enforce_retention `delay` seconds after start, then every INTERVAL seconds until
    stopped; a failed round is logged and the next one tried (a database outage without a
    traceback: the database logs it once).

    `store` may be a store, or what gives it once there is one to prune (AppContext's
    logs_to_prune): until then a round prunes nothing, and opens nothing."""

    def __init__(
        self,
        db: Database,
        store: LogStore | Callable[[], LogStore | None],
        clock: Clock,
        interval: float = INTERVAL,
        *,
        delay: float = 0.0,
    ) -> None:
        self.db, self.clock = db, clock
        self.store_to_prune = store if callable(store) else lambda: store
        self.delay = delay
        self.rounds = 0
        self.round_done = asyncio.Event()
        """Set after each round (tests wait on it instead of sleeping)."""
        self.interval = interval
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def run_forever(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), self.delay)
        while not self._stop.is_set():
            try:
                store = self.store_to_prune()
                dropped = (
                    (0, 0) if store is None else await enforce_retention(self.db, store, self.clock)
                )
                if any(dropped):
                    log.info("retention dropped %d log events, %d metric samples", *dropped)
            except Exception as exc:
                if is_unavailable(exc):
                    log.warning("logs retention round skipped: the database is unavailable")
                else:
                    log.exception("logs retention round failed")
            self.rounds += 1
            self.round_done.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.interval)
