"""What the availability and response-time routes answer, from incidents and raw results.

Availability is counted from incidents, as the hosted API counts it: a monitor's downtime in
a period is the time its incidents were open within the period (an open one up to now), over
the part of the period the object existed. Raw results (kept for a bounded recent window)
give the response times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.errors import InvalidRequest
from watchpost.history.models import CheckResult
from watchpost.incidents.models import Incident
from watchpost.locations.models import SERVER_LOCATION, Location
from watchpost.times import FIRST, LAST, read_time

RESPONSE_WINDOW: Final = timedelta(hours=24)
"""How far back a monitor's response times go (the hosted API's: the last 24 hours)."""
MAX_RESPONSE_TIMES: Final = 20_000
"""The most results one answer carries (a check every second for 5.5 hours; a monitor
checked every 30 s has 2,880 a day)."""
INVALID_RANGE: Final = (
    "The data range is invalid. The date format could not be parsed, the start time is in "
    "the future, or the end time is before the start time."
)


@dataclass(frozen=True)
class Period:
    start: datetime
    end: datetime
    """Exclusive."""


def _instant(raw: str, *, end: bool) -> datetime:
    """`2026-01-26` (a whole UTC day: from its start, or to its end) or an ISO datetime; any
    time UTC holds (the period is cut to the object's life anyway)."""
    return read_time(raw, day_end=end, earliest=FIRST, latest=LAST)


def period(from_: str | None, to: str | None, *, since: datetime, now: datetime) -> Period:
    """The period asked for, within [since, now]; 400 when a bound cannot be read, the start
    is in the future or the end is before the start."""
    try:
        start = _instant(from_, end=False) if from_ else since
    except ValueError:
        raise InvalidRequest([("from", INVALID_RANGE)], status=400) from None
    try:
        end = _instant(to, end=True) if to else now
    except ValueError:
        raise InvalidRequest([("to", INVALID_RANGE)], status=400) from None
    if start > now:
        raise InvalidRequest([("from", INVALID_RANGE)], status=400)
    if end < start or (from_ and to and end <= start):
        raise InvalidRequest([("from", INVALID_RANGE), ("to", INVALID_RANGE)], status=400)
    return Period(max(start, since), min(end, now))


async def summary(
    session: AsyncSession, *, column: str, subject_id: int, within: Period, now: datetime
) -> dict[str, Any]:
    """`availability` (percent), `total_downtime`, `number_of_incidents`, `longest_incident`,
    `average_incident` (seconds) of the object's incidents within the period."""
    (found,) = await summaries(
        session, column=column, subject_id=subject_id, periods=[within], now=now
    )
    return found


async def summaries(
    session: AsyncSession,
    *,
    column: str,
    subject_id: int,
    periods: Sequence[Period],
    now: datetime,
) -> list[dict[str, Any]]:
    """summary() of each period, from one read of the incidents overlapping any of them
    (the console shows four periods at once)."""
    reference = getattr(Incident, column)
    start = min(within.start for within in periods)
    end = max(within.end for within in periods)
    found = (
        await session.execute(
            select(Incident.started_at, Incident.resolved_at).where(
                reference == subject_id,
                Incident.started_at < end,
                or_(Incident.resolved_at.is_(None), Incident.resolved_at > start),
            )
        )
    ).all()
    rows = [(started, resolved) for started, resolved in found]
    return [_summary(rows, within, now) for within in periods]


def _summary(
    rows: Sequence[tuple[datetime, datetime | None]], within: Period, now: datetime
) -> dict[str, Any]:
    """summary() of the incidents (started_at, resolved_at) that overlap the period."""
    spans = [
        (min(resolved or now, within.end) - max(started, within.start)).total_seconds()
        for started, resolved in rows
        if started < within.end and (resolved is None or resolved > within.start)
    ]
    spans = [max(span, 0.0) for span in spans]
    length = (within.end - within.start).total_seconds()
    downtime = min(sum(spans), length)
    return {
        "availability": round(100.0 * (1 - downtime / length), 4) if length > 0 else 100.0,
        "total_downtime": round(downtime),
        "number_of_incidents": len(spans),
        "longest_incident": round(max(spans, default=0.0)),
        "average_incident": round(sum(spans) / len(spans)) if spans else 0,
    }


async def response_times(
    session: AsyncSession, *, monitor_id: int, now: datetime
) -> list[dict[str, Any]]:
    """The monitor's response times of the last 24 hours, oldest first: one entry per
    location that checked it (`region` its region, `location` its name), by name."""
    rows = await session.execute(
        select(CheckResult.at, CheckResult.latency_ms, CheckResult.location_id)
        .where(
            CheckResult.subject_type == "monitor",
            CheckResult.subject_id == monitor_id,
            CheckResult.at >= now - RESPONSE_WINDOW,
            CheckResult.latency_ms.is_not(None),
        )
        .order_by(CheckResult.at.desc(), CheckResult.id.desc())
        .limit(MAX_RESPONSE_TIMES)
    )
    by_location: dict[int | None, list[dict[str, Any]]] = {}
    for at, latency, location_id in reversed(rows.all()):
        by_location.setdefault(location_id, []).append(
            {"at": isoformat_ms(at), "response_time": round(latency / 1000, 6)}
        )
    if not by_location:
        return []
    places = {
        row.id: row
        for row in await session.execute(
            select(Location.id, Location.name, Location.region, Location.is_server)
        )
    }
    server = next((row for row in places.values() if row.is_server), None)
    entries = []
    for location_id, times in by_location.items():
        # None: the server's own engine (its results carry no location).
        place = places.get(location_id) if location_id is not None else server
        name = place.name if place is not None else SERVER_LOCATION
        region = place.region if place is not None else "us"
        entries.append({"region": region, "location": name, "response_times": times})
    return sorted(entries, key=lambda entry: str(entry["location"]))
