"""times.py: every time and date a person or an agent writes is read here, in one grammar,
to an aware UTC time within a range; nothing it is given raises anything but Unreadable."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.factories.hostile_times import HOSTILE_TIMES, OUT_OF_RANGE_DAYS
from watchpost import times
from watchpost.times import FIRST, LAST, OutOfRange, Unreadable, read_day, read_time

JAN_31 = datetime(2026, 1, 31, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-31T09:00:00Z",
        "2026-01-31T09:00:00z",
        "2026-01-31t09:00:00Z",
        "2026-01-31 09:00:00",
        "2026-01-31T09:00",
        " 2026-01-31T09:00:00+00:00 ",
        "2026-01-31T10:00:00+01:00",
        "2026-01-31T10:00:00+0100",
        "2026-01-31T04:30:00-04:30",
        "2026-01-31 09:00:00 UTC",
        "2026-01-31 09:00:00 utc",
        "2026-01-31T09:00:00.000000Z",
    ],
)
def test_the_forms_of_one_time(text: str) -> None:
    assert read_time(text) == JAN_31


def test_a_date_is_its_days_start_or_with_day_end_the_next_days() -> None:
    assert read_time("2026-01-31") == datetime(2026, 1, 31, tzinfo=UTC)
    assert read_time("2026-01-31", day_end=True) == datetime(2026, 2, 1, tzinfo=UTC)
    assert read_time("2026-01-31 UTC", day_end=True) == datetime(2026, 2, 1, tzinfo=UTC)
    # a time is itself, day_end or not
    assert read_time("2026-01-31T00:00:00Z", day_end=True) == datetime(2026, 1, 31, tzinfo=UTC)


def test_the_range_is_inclusive_and_every_time_is_utc() -> None:
    assert read_time("1970-01-01T00:00:00Z") == times.EARLIEST
    assert read_time("2200-01-01T00:00:00Z") == times.LATEST
    assert read_time("1970-01-01T01:00:00+01:00") == times.EARLIEST
    for outside in ("1969-12-31T23:59:59.999999Z", "2200-01-01T00:00:00.000001Z"):
        with pytest.raises(OutOfRange, match="between the years 1970 and 2200"):
            read_time(outside)
    assert read_time("0001-01-01", earliest=FIRST, latest=LAST) == FIRST
    assert read_time("9999-12-31T23:59:59.999999", earliest=FIRST, latest=LAST) == LAST
    assert read_time("9999-12-30", day_end=True, earliest=FIRST, latest=LAST) == datetime(
        9999, 12, 31, tzinfo=UTC
    )


@pytest.mark.parametrize(
    "text",
    [
        "9999-12-31T23:59:59-05:00",
        "0001-01-01T00:00:00+05:00",
    ],
)
def test_a_time_utc_cannot_hold_is_out_of_any_range(text: str) -> None:
    with pytest.raises(OutOfRange):
        read_time(text, earliest=FIRST, latest=LAST)


def test_the_day_after_the_last_is_out_of_any_range() -> None:
    with pytest.raises(OutOfRange):
        read_time("9999-12-31", day_end=True, earliest=FIRST, latest=LAST)
    with pytest.raises(OutOfRange):
        times.day_bounds(date(9999, 12, 31), end=True)
    assert times.day_bounds(date(9999, 12, 31), end=False) == datetime(9999, 12, 31, tzinfo=UTC)


@pytest.mark.parametrize("text", [*HOSTILE_TIMES, *OUT_OF_RANGE_DAYS, "", "   "])
def test_hostile_text_is_unreadable(text: str) -> None:
    with pytest.raises(Unreadable):
        read_time(text)
    if text != "1969-12-31":  # whose end, 1970-01-01 00:00, is in range
        with pytest.raises(Unreadable):
            read_time(text, day_end=True)


def test_needs_offset_refuses_a_time_without_one() -> None:
    with pytest.raises(Unreadable):
        read_time("2026-01-31T09:00:00", needs_offset=True)
    assert read_time("2026-01-31T09:00:00 UTC", needs_offset=True) == JAN_31
    assert read_time("2026-01-31T09:00:00z", needs_offset=True) == JAN_31


def test_days_and_times_of_day() -> None:
    assert read_day(" 2026-01-31 ") == date(2026, 1, 31)
    assert times.read_time_of_day("09:30") == time(9, 30)
    for text in ("2026-02-30", "\u0662\u0660\u0662\u0666-01-31", "x" * 5000, "nan"):
        with pytest.raises(Unreadable):
            read_day(text)
    for text in ("24:00", "23:59:60", "\u0660\u0669:30", "x" * 5000):
        with pytest.raises(Unreadable):
            times.read_time_of_day(text)


@given(st.text(max_size=60))
def test_any_text_is_a_time_in_range_or_unreadable(text: str) -> None:
    for day_end in (False, True):
        for earliest, latest in ((times.EARLIEST, times.LATEST), (FIRST, LAST)):
            try:
                found = read_time(text, day_end=day_end, earliest=earliest, latest=latest)
            except Unreadable:
                continue
            assert found.tzinfo is UTC and earliest <= found <= latest


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
def test_any_time_written_with_an_offset_reads_back(moment: datetime) -> None:
    for offset in ("+05:30", "-11:00", "Z"):
        text = moment.isoformat() + offset
        expected = datetime.fromisoformat(text).astimezone(UTC)
        assert read_time(text, earliest=FIRST, latest=LAST) == expected
