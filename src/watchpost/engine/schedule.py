"""When a row is due next: slots on a fixed grid per object, so nothing drifts or bursts.

Every object has a phase inside its interval, derived from (kind, id). Its slots are the
instants `EPOCH + phase + k * interval`. After a check of due time `due` that finished at
`finished`, the next due time is the first slot after both: the schedule, not the end of the
last check, decides (no drift), and slots missed while nobody ran are skipped, not replayed.

Phases follow the ids by Fibonacci hashing (id * 2**64 / phi), so objects created one after the
other, with consecutive ids, get phases spread evenly over their interval, however many.

A check due off its grid (the first one of a new or changed object, a recheck, the end of a
maintenance window) or so late that a later slot has passed (the catch-up after downtime)
is "off schedule". One claim starts at most OFF_SCHEDULE_PER_CLAIM of them; the others move
to their next slot (`spread`), so a burst of creations or a restart spreads over the
interval instead of firing at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
_GOLDEN: Final = 0x9E3779B97F4A7C15
"""2**64 / phi: successive multiples of it modulo 2⁶⁴ fall evenly over the whole range."""
_MASK: Final = (1 << 64) - 1
OFF_SCHEDULE_PER_CLAIM: Final = 10
"""Most checks off their schedule one claim starts; the others wait for their next slot."""
GROUPED_S: Final = 0.2
"""Not claiming ahead (engine_claim_ahead 0), an engine's pass waits this long past the next
due time, to claim the checks due just after it too; probe agents are paced so (probing/)."""


def _salt(kind: str) -> int:
    """Where the kind's phases start, so kinds do not share theirs."""
    return int.from_bytes(hashlib.blake2b(f"phase:{kind}".encode(), digest_size=8).digest(), "big")


_SALTS: Final = {kind: _salt(kind) for kind in ("monitor", "collector_target")}


def phase_ms(kind: str, object_id: int, interval_s: int) -> int:
    """Where in its interval the object's slots fall, in milliseconds (stable; consecutive
    ids of a kind spread evenly)."""
    salt = _SALTS.get(kind)
    mixed = (object_id * _GOLDEN + (salt if salt is not None else _salt(kind))) & _MASK
    return (mixed * interval_s * 1000) >> 64


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


def on_schedule(
    kind: str, object_id: int, interval_s: int, *, due: datetime, now: datetime
) -> bool:
    """Whether `due` is one of the object's slots and no later slot has passed by `now`."""
    following = next_slot(kind, object_id, interval_s, after=due)
    return following > now and following - due == timedelta(seconds=interval_s)


def spread(
    kind: str, rows: Sequence[Any], *, interval_s: Callable[[Any], int], now: datetime, room: int
) -> tuple[list[Any], list[tuple[Any, datetime]], int]:
    """Due rows (with `id` and `next_check_at`, oldest first) split into those to check now
    (every row on schedule, plus up to `room` off it) and those to move to their next slot;
    and what is left of `room`."""
    run: list[Any] = []
    moved: list[tuple[Any, datetime]] = []
    for row in rows:
        interval = interval_s(row)
        if on_schedule(kind, row.id, interval, due=row.next_check_at, now=now):
            run.append(row)
        elif room > 0:
            room -= 1
            run.append(row)
        else:
            moved.append((row, next_slot(kind, row.id, interval, after=now)))
    return run, moved, room
