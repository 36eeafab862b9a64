"""isoformat_ms: the one timestamp format of the API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from watchpost.clock import isoformat_ms


def reference(value: datetime) -> str:
    """The format spelled out field by field: four-digit year (ISO 8601), milliseconds cut."""
    v = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    return (
        f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f".{v.microsecond // 1000:03d}Z"
    )


@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 3, 4, 5, 6, 7, 999_999, tzinfo=UTC),
        datetime(2026, 3, 4, 5, 6, 7, 1_000, tzinfo=UTC),
        datetime(2026, 3, 4, 5, 6, 7, 999),
        datetime(2026, 12, 31, 23, 59, 59, 500_000, tzinfo=timezone(timedelta(hours=-5))),
        datetime(2026, 6, 1, 0, 30, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        datetime(1000, 1, 1, tzinfo=UTC),
        datetime(999, 12, 31, 23, 59, 59, 123_456, tzinfo=UTC),
        datetime(1, 1, 1, 12, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, 59, 999_999),
    ],
)
def test_isoformat_ms_matches_the_reference(value: datetime) -> None:
    assert isoformat_ms(value) == reference(value)


def test_isoformat_ms_truncates_to_milliseconds() -> None:
    assert isoformat_ms(datetime(2026, 1, 2, 3, 4, 5, 678_999, tzinfo=UTC)) == (
        "2026-01-02T03:04:05.678Z"
    )


def test_years_before_1000_have_four_digits() -> None:
    assert isoformat_ms(datetime(999, 12, 31, tzinfo=UTC)) == "0999-12-31T00:00:00.000Z"
