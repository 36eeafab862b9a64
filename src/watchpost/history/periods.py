"""The UTC hours and days that rollups cover, and the id lists statements take.

Spans are split at UTC hour and day boundaries into hourly and daily rollups; readers in
other time zones build their local days from hourly buckets.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final, Literal

Granularity = Literal["hour", "day"]

SIZES: Final[dict[str, timedelta]] = {"hour": timedelta(hours=1), "day": timedelta(days=1)}

CHUNK: Final = 500
"""Ids per IN (...) list, well under SQLite's bound-parameter limit."""


def bucket_start(at: datetime, granularity: str) -> datetime:
    """The start of the UTC hour or day holding `at`."""
    at = at.astimezone(UTC)
    if granularity == "hour":
        return at.replace(minute=0, second=0, microsecond=0)
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def bucket_ceil(at: datetime, granularity: str) -> datetime:
    """`at` if it starts a UTC hour or day, else the start of the next one."""
    start = bucket_start(at, granularity)
    return start if start == at else start + SIZES[granularity]


def split(start: datetime, end: datetime, granularity: str) -> Iterator[tuple[datetime, float]]:
    """(bucket start, seconds) for each UTC bucket the span [start, end) touches."""
    cursor = start.astimezone(UTC)
    end = end.astimezone(UTC)
    while cursor < end:
        bucket = bucket_start(cursor, granularity)
        stop = min(bucket + SIZES[granularity], end)
        yield bucket, (stop - cursor).total_seconds()
        cursor = stop


def chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    """`ids` in slices of at most CHUNK, one IN (...) list each."""
    for offset in range(0, len(ids), CHUNK):
        yield ids[offset : offset + CHUNK]
