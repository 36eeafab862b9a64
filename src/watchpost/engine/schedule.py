"""When a row is due next: slots on a fixed grid per object, so nothing drifts or bursts.

Every object has a phase inside its interval, derived from (kind, id). Its slots are the
instants `EPOCH + phase + k * interval`. After a check of due time `due` that finished at
`finished`, the next due time is the first slot after both: the schedule, not the end of the
last check, decides (no drift), and slots missed while nobody ran are skipped, not replayed.
The first check of a new or changed object is not on the grid: it is due at once.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def phase_ms(kind: str, object_id: int, interval_s: int) -> int:
    """Where in its interval the object's slots fall, in milliseconds (stable, uniform)."""
    digest = hashlib.blake2b(f"{kind}:{object_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % (interval_s * 1000)


def next_slot(kind: str, object_id: int, interval_s: int, *, after: datetime) -> datetime:
    """The object's first slot strictly after `after`."""
    interval = interval_s * 1000
    phase = phase_ms(kind, object_id, interval_s)
    elapsed = (after - EPOCH) // _MS
    k = (elapsed - phase) // interval + 1
    return EPOCH + (phase + k * interval) * _MS


def next_due(
    kind: str, object_id: int, interval_s: int, *, due: datetime, finished: datetime
) -> datetime:
    """The next due time after a check of `due` that finished at `finished`."""
    return next_slot(kind, object_id, interval_s, after=max(due, finished))
