"""Times a hostile or careless client may send: well-formed enough to reach a parser, none of
them a time an endpoint can take (out of UTC's or the project's range, not a time at all).
Every endpoint that reads a time answers them with its own error naming the field."""

from __future__ import annotations

from typing import Final

HOSTILE_TIMES: Final = (
    "9999-12-31T23:59:59-05:00",  # past the year 9999 in UTC
    "0001-01-01T00:00:00+05:00",  # before the year 1 in UTC
    "x" * 5000,
    "2026-01-02T09:00:00." + "1" * 5000 + "Z",  # a fraction that never ends
    "nan",
    "2026-01-02T00:00:00+24:00",  # no such offset
    "2026-06-30T23:59:60Z",  # a leap second
    "2026-02-30T00:00:00Z",
    "\u0662\u0660\u0662\u0666-\u0660\u0661-\u0660\u0662T00:00:00Z",  # Arabic-Indic digits
    "2026\uff0d01\uff0d02T00:00:00Z",  # full-width hyphens
    "09:00",  # a time of day without its date
    "2026-01-02T00:00:00ZZ",
)
"""Refused by every reader of a time."""

OUT_OF_RANGE_DAYS: Final = ("9999-12-31", "0001-01-01", "1969-12-31", "2200-01-02")
"""Dates a stored time may not name (the project keeps times within 1970 to 2200)."""
