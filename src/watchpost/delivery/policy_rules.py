"""The rules of escalation policy steps, as pure functions of a step and a moment or an
incident's metadata: when a step is due, whether a branch matches, what an instructions step
writes."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

from watchpost.timezones import zone_of

DAYS: Final = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def zone(name: str | None) -> ZoneInfo:
    """A step's time zone (an IANA or a Rails name); UTC when it names none."""
    return zone_of(name or "UTC") or ZoneInfo("UTC")


def _clock(value: str) -> time:
    hours, minutes = value.split(":")
    return time(int(hours), int(minutes))


def due_after(step: dict[str, Any] | None, now: datetime) -> datetime:
    """When a step is due, counted from `now` (the step before): its `wait_until_time` (the
    next such moment in `wait_until_timezone`), else `wait_before` seconds later."""
    step = step or {}
    until = step.get("wait_until_time")
    if until:
        tz = zone(step.get("wait_until_timezone"))
        local = now.astimezone(tz)
        at = datetime.combine(local.date(), _clock(until), tzinfo=tz)
        if at <= local:
            at = datetime.combine(local.date() + timedelta(days=1), _clock(until), tzinfo=tz)
        return at.astimezone(now.tzinfo)
    return now + timedelta(seconds=float(step.get("wait_before") or 0))


def in_time_window(step: dict[str, Any], now: datetime) -> bool:
    """Whether `now` falls on one of the step's `days` between `time_from` and `time_to` in its
    `timezone` (a window whose end is before its start runs past midnight; no days: every
    day; no times: all day)."""
    local = now.astimezone(zone(step.get("timezone")))
    start = _clock(step["time_from"]) if step.get("time_from") else time(0, 0)
    end = _clock(step["time_to"]) if step.get("time_to") else None
    days = step.get("days") or DAYS
    moment = local.time().replace(second=0, microsecond=0)
    today = DAYS[local.weekday()]
    if end is None or start < end:
        return today in days and moment >= start and (end is None or moment < end)
    if start == end:
        return today in days
    # Overnight: the part after `start` belongs to today, the part before `end` to yesterday.
    yesterday = DAYS[(local.weekday() - 1) % 7]
    return (today in days and moment >= start) or (yesterday in days and moment < end)


def metadata_matches(step: dict[str, Any], metadata: dict[str, Any]) -> bool:
    """Whether the incident's metadata under the step's `metadata_key` holds one of its
    `metadata_values` (a `no_value` value matches a key that is absent or blank)."""
    held = [str(v) for v in metadata.get(step.get("metadata_key") or "", []) if str(v).strip()]
    for wanted in step.get("metadata_values") or []:
        kind = str(wanted.get("type") or "String")
        if kind == "no_value":
            if not held:
                return True
            continue
        for key in ("value", "email", "name", "item_id"):
            if wanted.get(key) is not None and str(wanted[key]) in held:
                return True
    return False


_PLACEHOLDER: Final = re.compile(r"\{([^{}\s]{1,255})\}")


def instructions_text(step: dict[str, Any], metadata: dict[str, Any]) -> str:
    """An instructions step's comment, its `{key}` placeholders filled from the incident's
    metadata (a key it lacks stays as written)."""

    def fill(match: re.Match[str]) -> str:
        values = metadata.get(match.group(1))
        return ", ".join(str(v) for v in values) if values else match.group(0)

    return _PLACEHOLDER.sub(fill, str(step.get("instructions_comment") or ""))
