"""A status page's history window (its local days) and the interval arithmetic over it."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

import orjson

Interval = tuple[datetime, datetime]


def merge_intervals(intervals: Iterable[Interval]) -> list[Interval]:
    """The intervals' union as sorted, disjoint intervals (empty ones dropped)."""
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def subtract_intervals(left: list[Interval], right: list[Interval]) -> list[Interval]:
    result: list[Interval] = []
    for start, end in left:
        pieces = [(start, end)]
        for cut_start, cut_end in right:
            pieces = [
                piece
                for a, b in pieces
                for piece in ((a, min(b, cut_start)), (max(a, cut_end), b))
                if piece[0] < piece[1]
            ]
        result += pieces
    return merge_intervals(result)


def _end(interval: Interval) -> datetime:
    return interval[1]


def covered_seconds(intervals: list[Interval], start: datetime, end: datetime) -> float:
    """Seconds of [start, end) covered by `intervals`, sorted and disjoint (as
    merge_intervals makes them): found by bisection, so a year of daily incidents costs a few
    steps per cell."""
    total = 0.0
    for index in range(bisect_right(intervals, start, key=_end), len(intervals)):
        a, b = intervals[index]
        if a >= end:
            break
        if max(a, start) < min(b, end):
            total += (min(b, end) - max(a, start)).total_seconds()
    return total


def _day_start(day: date, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=tz)


def window_days(*, now: datetime, days: int, tz: ZoneInfo) -> list[tuple[date, datetime]]:
    """The window's local days, oldest first, with their start instants."""
    today = now.astimezone(tz).date()
    return [
        (today - timedelta(days=offset), _day_start(today - timedelta(days=offset), tz))
        for offset in range(days - 1, -1, -1)
    ]


class SharedDays(list[dict[str, Any]]):
    """status_history entries that many items share: read, never changed. `json` is their
    encoding, made once: a response embeds it instead of encoding the entries per item."""

    @cached_property
    def json(self) -> orjson.Fragment:
        return orjson.Fragment(orjson.dumps(self))


@dataclass(frozen=True)
class Window:
    """A page's history window, built once per request and shared by every resource.

    `shown` of its most recent days get a status_history entry; the days before them
    ("earlier") count only in the totals behind `availability`.
    """

    now: datetime
    days: list[date]
    starts: list[datetime]
    ends: list[datetime]
    """Each day's end, the last one clipped to now. Starts and ends are UTC datetimes (the
    same instants): comparing them with the UTC cells costs no time zone lookups."""
    shown: int
    utc_midnights: bool = False
    """Every day starts at a UTC midnight (daily rollups then cover the days exactly)."""

    @property
    def first_shown(self) -> int:
        return len(self.days) - self.shown

    @property
    def start(self) -> datetime:
        return self.starts[0]

    @property
    def shown_start(self) -> datetime:
        return self.starts[self.first_shown]

    @cached_property
    def shown_day_texts(self) -> list[str]:
        """The shown days as the API writes them (YYYY-MM-DD), made once per window."""
        return [day.isoformat() for day in self.days[self.first_shown :]]

    @cached_property
    def unobserved_days(self) -> SharedDays:
        """status_history entries of the shown days when nothing was observed, made once per
        window and shared by every item without observations."""
        return SharedDays(
            {
                "day": day,
                "status": "not_monitored",
                "downtime_duration": 0,
                "maintenance_duration": 0,
            }
            for day in self.shown_day_texts
        )


def make_window(*, now: datetime, days: int, tz: ZoneInfo, shown: int | None = None) -> Window:
    """The window of `days` local days ending today; `shown` (default all) get entries."""
    window = window_days(now=now, days=days, tz=tz)
    starts = [start for _, start in window]
    ends = [*starts[1:], _day_start(window[-1][0] + timedelta(days=1), tz)]
    return Window(
        now=now,
        days=[day for day, _ in window],
        starts=[start.astimezone(UTC) for start in starts],
        ends=[min(end, now).astimezone(UTC) for end in ends],
        shown=days if shown is None else max(min(shown, days), 1),
        utc_midnights=all(start.utcoffset() == timedelta(0) for start in starts),
    )
