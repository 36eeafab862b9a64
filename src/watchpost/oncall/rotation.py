"""A calendar's rotation: its users in turn, shift after shift, as regular events.

Shifts are `rotation_length` hours, days or weeks from `start_rotations_at`, counted on the
wall clock of the rotation's `timezone` (so handovers keep their local time across
daylight-saving changes; UTC by default), the last one cut at `end_rotations_at`. With
`working_hours`, a shift's user is on call only within those windows (local time; a window
whose end is not after its start runs overnight): each shift becomes one event per window
it overlaps. Only events ending after today 00:00 UTC are made; the regular events
overlapping the rotation's span that end after then are removed first (overrides stay). A
rotation that would make more than MAX_ROTATION_EVENTS events is refused, before anything
is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import delete, insert
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.errors import InvalidRequest, Problem
from watchpost.oncall.events import known, members_named, today, touched
from watchpost.oncall.models import OnCallCalendar, OnCallEvent
from watchpost.oncall.schemas import DAYS, RotationCreate, WorkingHour, parse_time, rfc3339
from watchpost.problems import accepted, team_name_problems

MAX_ROTATION_EVENTS: Final = 20_000
"""Most events one rotation may make (and most shifts it may span from today)."""
STEP: Final = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
Span = tuple[datetime, datetime]


def document(rotation: dict[str, Any]) -> dict[str, Any]:
    """A stored rotation as the API shows it (`rotation_period` too: the docs' name)."""
    return {**rotation, "rotation_period": rotation["rotation_interval"]}


def _zone(name: str | None, previous: dict[str, Any] | None) -> tuple[ZoneInfo, list[Problem]]:
    chosen = name.strip() if name is not None else (previous or {}).get("timezone") or "UTC"
    try:
        return ZoneInfo(chosen), []
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC"), [("timezone", "timezone must be an IANA time zone name")]


def _hours(windows: list[WorkingHour]) -> list[dict[str, str]]:
    """The windows as stored and shown: HH:MM, each once, Sunday first then by start."""
    shown = {(w.day, w.start_time[:5], w.end_time[:5]) for w in windows}
    ordered = sorted(shown, key=lambda w: (DAYS.index(w[0]), w[1], w[2]))
    return [{"day": d, "start_time": s, "end_time": e} for d, s, e in ordered]


def _local(day: datetime, clock: str, zone: ZoneInfo) -> datetime:
    hour, minute = (int(part) for part in clock.split(":"))
    return datetime.combine(day.date(), time(hour, minute), tzinfo=zone).astimezone(UTC)


def _windows(
    span: Span, hours: list[dict[str, str]], zone: ZoneInfo, *, after: datetime, limit: int
) -> list[Span]:
    """The parts of span within the working hours (all of it without any), merged; only
    windows ending after `after` are looked for, and at most about `limit` of them."""
    if not hours:
        return [span]
    start, end = span
    found: list[Span] = []
    # A window lasts a day at most: one ending after `after` opens less than a day before.
    day = max(start, after - timedelta(days=1)).astimezone(zone) - timedelta(days=1)
    while day.astimezone(UTC) < end + timedelta(days=1) and len(found) <= limit:
        name = DAYS[(day.weekday() + 1) % 7]  # Python's Monday 0; the API's Sunday first
        for window in hours:
            if window["day"] != name:
                continue
            opens = _local(day, window["start_time"], zone)
            closes = _local(day, window["end_time"], zone)
            if closes <= opens:
                closes = _local(day + timedelta(days=1), window["end_time"], zone)
            if opens < end and closes > start:
                found.append((max(opens, start), min(closes, end)))
        day += timedelta(days=1)
    merged: list[Span] = []
    for piece in sorted(found):
        if merged and piece[0] <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], piece[1]))
        else:
            merged.append(piece)
    return merged


def _shifts(
    start: datetime, end: datetime, step: timedelta, zone: ZoneInfo, first: int
) -> Iterator[tuple[int, Span]]:
    """Shift k from `first` on: [start + k·step, start + (k+1)·step) on the zone's wall
    clock, the last cut at end."""
    local = start.astimezone(zone).replace(tzinfo=None)

    def at(k: int) -> datetime:
        if step < timedelta(days=1):
            return start + k * step  # hours are hours, whatever the clock says
        return (local + k * step).replace(tzinfo=zone).astimezone(UTC)

    k = first
    while (begins := max(start, at(k))) < end:
        yield k, (begins, min(end, at(k + 1)))
        k += 1


async def set_rotation(
    db: AsyncSession, calendar: OnCallCalendar, data: RotationCreate, team_name: str, now: datetime
) -> dict[str, Any]:
    """Store the rotation and make its events (the module's docstring says how)."""
    problems = team_name_problems(data.team_name, team_name)
    interval = data.rotation_interval or data.rotation_period
    if interval is None:
        problems.append(("rotation_interval", "rotation_interval (or rotation_period) is required"))
    elif data.rotation_period is not None and data.rotation_period != interval:
        problems.append(("rotation_period", "rotation_period must equal rotation_interval"))
    start, more = parse_time("start_rotations_at", data.start_rotations_at)
    end, further = parse_time("end_rotations_at", data.end_rotations_at)
    zone, wrong_zone = _zone(data.timezone, calendar.rotation)
    problems += more + further + wrong_zone
    if start is not None and end is not None and end <= start:
        problems.append(("end_rotations_at", "end_rotations_at must be after start_rotations_at"))
    users, more = members_named(data.users, await known(db, calendar.team_id, data.users), "users")
    problems += more
    accepted(data, problems)
    assert start is not None and end is not None and interval is not None
    step = STEP[interval] * data.rotation_length
    hours = _hours(data.working_hours or [])
    midnight = today(now)
    # Shifts over by today are skipped (one more for the clock's changes), then counted.
    first = max(0, (midnight - start) // step - 1)
    too_many = False
    rows: list[dict[str, Any]] = []
    shifts = 0
    for k, shift in _shifts(start, end, step, zone, first):
        if shift[1] <= midnight:
            continue
        shifts += 1
        pieces = _windows(shift, hours, zone, after=midnight, limit=MAX_ROTATION_EVENTS)
        for begins, ends in pieces:
            if ends > midnight:
                rows.append(
                    {
                        "team_id": calendar.team_id,
                        "calendar_id": calendar.id,
                        "users": [users[k % len(users)]],
                        "starts_at": begins,
                        "ends_at": ends,
                        "override": False,
                        "created_at": now,
                        "updated_at": now,
                    }
                )
        if len(rows) > MAX_ROTATION_EVENTS or shifts > MAX_ROTATION_EVENTS:
            too_many = True
            break
    if too_many:
        raise InvalidRequest.field(
            "end_rotations_at", f"makes more than {MAX_ROTATION_EVENTS} events, the most allowed"
        )
    await db.execute(
        delete(OnCallEvent)
        .where(
            OnCallEvent.calendar_id == calendar.id,
            OnCallEvent.override.is_(False),
            OnCallEvent.starts_at < end,
            OnCallEvent.ends_at > start,
            OnCallEvent.ends_at > midnight,
        )
        .execution_options(synchronize_session=False)
    )
    for offset in range(0, len(rows), 1000):
        await db.execute(insert(OnCallEvent), rows[offset : offset + 1000])
    calendar.rotation = {
        "users": users,
        "rotation_length": data.rotation_length,
        "rotation_interval": interval,
        "start_rotations_at": rfc3339(start),
        "end_rotations_at": rfc3339(end),
        "timezone": zone.key,
        "working_hours": hours,
    }
    touched(calendar, now)
    await db.flush()
    return document(calendar.rotation)
