"""Times and dates written by people and agents (query strings, request bodies, console
forms, agents' reports), read in one place.

One grammar everywhere: ISO 8601 / RFC 3339 as `datetime.fromisoformat` reads it, with `Z`
or `z`, an offset, or a trailing ` UTC`; a time without an offset is UTC. A value is refused
(`Unreadable`, a ValueError) when it is not such a time, has a character that is not ASCII
(`str.isdigit()` and some Python versions take other scripts' digits), is longer than
MAX_LENGTH, or lies outside the range its caller allows (`OutOfRange`): by default the
project's EARLIEST..LATEST, which every database engine holds. A time that cannot be held in
UTC at all (`9999-12-31T23:59:59-05:00`, the day after `9999-12-31`) is out of any range, so
no caller ever meets an OverflowError. Callers word their own errors.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Final

EARLIEST: Final = datetime(1970, 1, 1, tzinfo=UTC)
LATEST: Final = datetime(2200, 1, 1, tzinfo=UTC)
"""The times a stored or searched time may name (inclusive)."""
FIRST: Final = datetime.min.replace(tzinfo=UTC)
LAST: Final = datetime.max.replace(tzinfo=UTC)
"""Every time UTC can hold: the range of a filter's bound, where 1900 or 9000 only means
"from the start" or "to the end"."""
MAX_LENGTH: Final = 100
"""Characters a time may have (the longest readable one, with offset seconds and a
microsecond fraction, has 40; the rest could only be digits of a fraction)."""
_DATE_LENGTH: Final = 10
"""A date alone, `2026-01-31` (or the week date `2026-W05-6`)."""


class Unreadable(ValueError):
    """Not a time (or date) as this module reads one."""


class OutOfRange(Unreadable):
    """A readable time outside the range the caller allows; str() says the range."""

    def __init__(self, earliest: datetime, latest: datetime) -> None:
        super().__init__(f"must lie between the years {earliest.year} and {latest.year}")


def _text(raw: str) -> str:
    text = raw.strip()
    if not text or len(text) > MAX_LENGTH or not text.isascii():
        raise Unreadable(raw[:MAX_LENGTH])
    return text


def _without_utc(text: str) -> tuple[str, bool]:
    """The text without a trailing ` UTC` (any case), and whether it had one."""
    return (text[:-4], True) if text.upper().endswith(" UTC") else (text, False)


def is_day(raw: str) -> bool:
    """Whether `raw` is written as a date alone (read_time reads it as a whole UTC day)."""
    return len(_without_utc(raw.strip())[0]) == _DATE_LENGTH


def read_time(
    raw: str,
    *,
    day_end: bool = False,
    needs_offset: bool = False,
    earliest: datetime = EARLIEST,
    latest: datetime = LATEST,
) -> datetime:
    """The aware UTC time `raw` names, within [earliest, latest].

    A date alone is its UTC day's start, or with `day_end` the next day's start (the end of
    an exclusive range that takes the whole day). `needs_offset`: a time without an offset
    is refused rather than taken as UTC."""
    text, named_utc = _without_utc(_text(raw))
    if text.endswith("z"):
        text = text[:-1] + "Z"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise Unreadable(text) from None
    if moment.tzinfo is None:
        if needs_offset and not named_utc:
            raise Unreadable(text)
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)
        if day_end and len(text) == _DATE_LENGTH:  # is_day()
            moment += timedelta(days=1)
    except OverflowError:  # past the year 9999, or before the year 1, in UTC
        raise OutOfRange(earliest, latest) from None
    if not earliest <= moment <= latest:
        raise OutOfRange(earliest, latest)
    return moment


def read_day(raw: str) -> date:
    """The day `raw` names (ISO 8601: `2026-01-31`, also `20260131` and `2026-W05-6`)."""
    text = _text(raw)
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Unreadable(text) from None


def day_bounds(day: date, *, end: bool) -> datetime:
    """The UTC start of `day`, or with `end` of the next day; OutOfRange for the day after
    9999-12-31."""
    start = datetime.combine(day, time(), tzinfo=UTC)
    if not end:
        return start
    try:
        return start + timedelta(days=1)
    except OverflowError:
        raise OutOfRange(FIRST, LAST) from None


def read_time_of_day(raw: str) -> time:
    """A wall-clock time (ISO 8601: `09:30`, `09:30:00`), with whatever offset or fraction
    it was written with for the caller to judge."""
    text = _text(raw)
    try:
        return time.fromisoformat(text)
    except ValueError:
        raise Unreadable(text) from None
