"""One log event as ingested and as found, and the ids that order them."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One event as ingested."""

    id: int
    """Unique int64, ascending in time of receipt (see new_event_ids)."""
    source_id: int
    team_id: int
    dt: datetime
    """Aware UTC: the event's time, or the time of receipt."""
    level: str
    """The event's "level" or "severity" (lower-cased), "" if none."""
    service: str
    """The event's service name ("service", OTLP service.name), "" if none."""
    message: str
    """The event's "message"/"msg"/OTLP body as text, "" if none."""
    attributes: Mapping[str, str]
    """Every leaf of the event flattened: "context.runtime.file" -> "app.py" (values as text;
    lists indexed "tags.0"); includes level/message."""
    raw: bytes
    """The event as sent, JSON (orjson), the raw `dt` value kept."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event as found."""

    id: int
    source_id: int
    dt: datetime
    raw: bytes


@dataclass(frozen=True, slots=True)
class MetricPoint:
    """One metric sample of a source: a name, a value at a time, and its tags."""

    source_id: int
    team_id: int
    dt: datetime
    """Aware UTC."""
    name: str
    value: float
    tags: Mapping[str, str] = field(default_factory=dict)


# An id is milliseconds since the epoch << 20 | a 10-bit process tag << 10 | a 10-bit counter.
# Within a process ids strictly ascend (past 1,024 ids in one millisecond the counter borrows
# the next millisecond); two processes differ by their tag (random, mixed with the pid).
_COUNTER_BITS = 10
_TAG_BITS = 10
_PER_MS = 1 << _COUNTER_BITS
_TAG = (os.getpid() ^ random.SystemRandom().getrandbits(_TAG_BITS)) & ((1 << _TAG_BITS) - 1)
_lock = threading.Lock()
_last = (0, -1)  # (milliseconds, counter) of the last id handed out


def new_event_ids(count: int) -> list[int]:
    """`count` new unique ids, ascending, each above every id this process gave before."""
    global _last
    if count <= 0:
        return []
    with _lock:
        ms, counter = _last
        now_ms = time.time_ns() // 1_000_000
        if now_ms > ms:
            ms, counter = now_ms, -1
        ids: list[int] = []
        for _ in range(count):
            counter += 1
            if counter >= _PER_MS:
                ms, counter = ms + 1, 0
            ids.append((ms << (_TAG_BITS + _COUNTER_BITS)) | (_TAG << _COUNTER_BITS) | counter)
        _last = (ms, counter)
        return ids


def id_floor(at: datetime) -> int:
    """The smallest id an event received at `at` (or later) can have."""
    return int(at.timestamp() * 1000) << (_TAG_BITS + _COUNTER_BITS)
