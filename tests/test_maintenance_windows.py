"""Maintenance windows: wall-clock in their zone, day filters, midnight, DST, overlap."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from watchpost.maintenance_windows import (
    WEEKDAYS,
    check_clock_time,
    in_maintenance,
    maintenance_end,
    maintenance_intervals,
    maintenance_overlap,
)
from watchpost.monitors.models import Monitor


@dataclass
class Window:
    maintenance_from: str | None
    maintenance_to: str | None
    maintenance_timezone: str = "UTC"
    maintenance_days: list[str] = field(default_factory=list)


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


SECOND = timedelta(seconds=1)
HOUR = timedelta(hours=1)


def night(window: Window, day: datetime) -> timedelta:
    """Maintenance between `day` and a day later."""
    return maintenance_overlap(window, day, day + timedelta(days=1))


def test_no_window_is_never_maintenance() -> None:
    window = Window(None, None)
    at = utc(2026, 1, 5, 1)
    assert not in_maintenance(window, at)
    assert maintenance_end(window, at) is None
    assert maintenance_overlap(window, at, at + timedelta(days=30)) == timedelta(0)


def test_window_is_half_open_in_utc() -> None:
    window = Window("01:00:00", "03:00:00")
    assert not in_maintenance(window, utc(2026, 1, 5, 0, 59, 59))
    assert in_maintenance(window, utc(2026, 1, 5, 1))
    assert in_maintenance(window, utc(2026, 1, 5, 2, 59, 59))
    assert not in_maintenance(window, utc(2026, 1, 5, 3))
    assert maintenance_end(window, utc(2026, 1, 5, 2)) == utc(2026, 1, 5, 3)
    assert maintenance_end(window, utc(2026, 1, 5, 3)) is None


def test_window_follows_the_zone_offset_through_the_year() -> None:
    window = Window("01:00:00", "03:00:00", "Europe/Prague")
    # Winter: UTC+1.
    assert maintenance_intervals(window, utc(2026, 1, 5), utc(2026, 1, 6)) == [
        (utc(2026, 1, 5, 0), utc(2026, 1, 5, 2))
    ]
    # Summer: UTC+2, the window starts the previous UTC day.
    assert in_maintenance(window, utc(2026, 7, 5, 23, 30))
    assert maintenance_end(window, utc(2026, 7, 5, 23, 30)) == utc(2026, 7, 6, 1)


def test_half_hour_zone_crossing_midnight_on_one_day() -> None:
    window = Window("23:00:00", "01:00:00", "Asia/Kolkata", ["mon"])
    # Monday 2026-01-05 23:00 IST = 17:30 UTC, until Tuesday 01:00 IST = Monday 19:30 UTC.
    assert not in_maintenance(window, utc(2026, 1, 5, 17, 29, 59))
    assert in_maintenance(window, utc(2026, 1, 5, 17, 30))
    assert in_maintenance(window, utc(2026, 1, 5, 19, 0))  # Tuesday 00:30 IST
    assert maintenance_end(window, utc(2026, 1, 5, 18)) == utc(2026, 1, 5, 19, 30)
    # Tuesday night is not listed; Monday 00:30 IST belongs to Sunday's window.
    assert not in_maintenance(window, utc(2026, 1, 6, 18))
    assert not in_maintenance(window, utc(2026, 1, 4, 19, 0))


def test_window_crossing_midnight_belongs_to_the_day_it_starts() -> None:
    window = Window("22:00:00", "02:00:00", "UTC", ["fri"])
    friday, saturday = utc(2026, 1, 9), utc(2026, 1, 10)
    assert in_maintenance(window, friday.replace(hour=23))
    assert in_maintenance(window, saturday.replace(hour=1))
    assert not in_maintenance(window, friday.replace(hour=1))
    assert not in_maintenance(window, saturday.replace(hour=23))


def test_day_filter_uses_the_local_day() -> None:
    # Monday 22:30 in New York is already Tuesday in UTC.
    window = Window("22:00:00", "23:00:00", "America/New_York", ["mon"])
    assert in_maintenance(window, utc(2026, 1, 6, 3, 30))
    assert not in_maintenance(window, utc(2026, 1, 7, 3, 30))


def test_empty_day_list_means_every_day() -> None:
    window = Window("01:00:00", "02:00:00")
    for offset in range(7):
        day = utc(2026, 1, 5) + timedelta(days=offset)
        assert in_maintenance(window, day.replace(hour=1, minute=30)), WEEKDAYS[offset]


def test_day_filter_keeps_only_listed_days() -> None:
    window = Window("01:00:00", "02:00:00", "UTC", ["sat", "sun"])
    week = maintenance_overlap(window, utc(2026, 1, 5), utc(2026, 1, 12))  # Mon to Mon
    assert week == 2 * HOUR
    assert not in_maintenance(window, utc(2026, 1, 9, 1, 30))  # Friday
    assert in_maintenance(window, utc(2026, 1, 10, 1, 30))  # Saturday


def test_equal_ends_are_a_whole_day() -> None:
    window = Window("00:00:00", "00:00:00", "Europe/Prague", ["sun"])
    sunday_noon = utc(2026, 1, 11, 11)
    assert in_maintenance(window, sunday_noon)
    assert in_maintenance(window, utc(2026, 1, 10, 23))  # Sunday 00:00 in Prague
    assert maintenance_end(window, sunday_noon) == utc(2026, 1, 11, 23)
    assert not in_maintenance(window, utc(2026, 1, 11, 23))


def test_back_to_back_days_end_when_the_last_one_does() -> None:
    window = Window("00:00:00", "00:00:00", "UTC", ["sat", "sun"])
    assert maintenance_end(window, utc(2026, 1, 10, 12)) == utc(2026, 1, 12)
    assert maintenance_intervals(window, utc(2026, 1, 5), utc(2026, 1, 19)) == [
        (utc(2026, 1, 10), utc(2026, 1, 12)),
        (utc(2026, 1, 17), utc(2026, 1, 19)),
    ]


def test_maintenance_every_whole_day_gives_a_far_end_to_wake_up_at() -> None:
    window = Window("00:00:00", "00:00:00")
    at = utc(2026, 1, 5, 12)
    end = maintenance_end(window, at)
    assert end is not None and end > at + timedelta(days=7)


# ------------------------------------------------------------------------ DST


def test_spring_forward_shortens_the_window_in_utc() -> None:
    # New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00 UTC).
    window = Window("01:00:00", "03:00:00", "America/New_York")
    assert night(window, utc(2026, 3, 6, 12)) == 2 * HOUR
    assert maintenance_intervals(window, utc(2026, 3, 8), utc(2026, 3, 9)) == [
        (utc(2026, 3, 8, 6), utc(2026, 3, 8, 7))
    ]
    assert night(window, utc(2026, 3, 9, 12)) == 2 * HOUR


def test_fall_back_lengthens_the_window_in_utc() -> None:
    # New York, 2026-11-01: 02:00 EDT falls back to 01:00 EST (06:00 UTC).
    window = Window("01:00:00", "03:00:00", "America/New_York")
    assert maintenance_intervals(window, utc(2026, 11, 1), utc(2026, 11, 2)) == [
        (utc(2026, 11, 1, 5), utc(2026, 11, 1, 8))  # first 01:00 EDT to 03:00 EST
    ]


def test_ambiguous_end_is_its_second_occurrence() -> None:
    window = Window("00:00:00", "01:30:00", "America/New_York")
    # 00:00 EDT = 04:00 UTC; the second 01:30 is 01:30 EST = 06:30 UTC.
    assert maintenance_intervals(window, utc(2026, 11, 1), utc(2026, 11, 2)) == [
        (utc(2026, 11, 1, 4), utc(2026, 11, 1, 6, 30))
    ]
    assert in_maintenance(window, utc(2026, 11, 1, 5, 45))  # first 01:45
    assert in_maintenance(window, utc(2026, 11, 1, 6, 15))  # second 01:15


def test_ambiguous_start_is_its_first_occurrence() -> None:
    window = Window("01:30:00", "04:00:00", "America/New_York")
    assert maintenance_intervals(window, utc(2026, 11, 1), utc(2026, 11, 2)) == [
        (utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 9))
    ]


def test_skipped_start_begins_when_the_clocks_jump() -> None:
    # Prague, 2026-03-29: 02:00 CET jumps to 03:00 CEST at 01:00 UTC.
    window = Window("02:30:00", "04:00:00", "Europe/Prague")
    assert maintenance_intervals(window, utc(2026, 3, 28, 12), utc(2026, 3, 29, 12)) == [
        (utc(2026, 3, 29, 1), utc(2026, 3, 29, 2))
    ]


def test_window_inside_the_skipped_hour_does_not_happen_that_night() -> None:
    window = Window("02:00:00", "02:30:00", "Europe/Prague")
    assert night(window, utc(2026, 3, 28, 12)) == timedelta(0)
    assert not in_maintenance(window, utc(2026, 3, 29, 1))
    assert night(window, utc(2026, 3, 29, 12)) == timedelta(minutes=30)


def test_skipped_end_ends_when_the_clocks_jump() -> None:
    window = Window("01:00:00", "02:30:00", "Europe/Prague")
    # 01:00 CET = 00:00 UTC; 02:30 does not exist, the clocks jump at 01:00 UTC.
    assert maintenance_intervals(window, utc(2026, 3, 28, 12), utc(2026, 3, 29, 12)) == [
        (utc(2026, 3, 29, 0), utc(2026, 3, 29, 1))
    ]


def test_prague_fall_back_repeats_an_hour() -> None:
    # 2026-10-25: 03:00 CEST falls back to 02:00 CET at 01:00 UTC.
    window = Window("02:00:00", "04:00:00", "Europe/Prague")
    assert maintenance_intervals(window, utc(2026, 10, 24, 12), utc(2026, 10, 25, 12)) == [
        (utc(2026, 10, 25, 0), utc(2026, 10, 25, 3))  # first 02:00 CEST to 04:00 CET
    ]


def test_lord_howe_half_hour_shift_forward() -> None:
    # 2026-10-04 02:00 (+10:30) jumps to 02:30 (+11:00), at 15:30 UTC on 10-03.
    window = Window("02:00:00", "03:00:00", "Australia/Lord_Howe")
    assert maintenance_intervals(window, utc(2026, 10, 3), utc(2026, 10, 4)) == [
        (utc(2026, 10, 3, 15, 30), utc(2026, 10, 3, 16))
    ]
    skipped = Window("02:10:00", "02:20:00", "Australia/Lord_Howe")
    assert maintenance_overlap(skipped, utc(2026, 10, 3), utc(2026, 10, 4)) == timedelta(0)
    assert maintenance_overlap(skipped, utc(2026, 10, 4), utc(2026, 10, 5)) == timedelta(minutes=10)


def test_lord_howe_half_hour_fall_back() -> None:
    # 2026-04-05 02:00 (+11:00) falls back to 01:30 (+10:30), at 15:00 UTC on 04-04.
    window = Window("01:00:00", "03:00:00", "Australia/Lord_Howe")
    assert maintenance_intervals(window, utc(2026, 4, 4), utc(2026, 4, 5)) == [
        (utc(2026, 4, 4, 14), utc(2026, 4, 4, 16, 30))
    ]


def test_whole_days_stay_whole_across_fall_back() -> None:
    # The repeated hour belongs once to the window; consecutive days do not double count.
    window = Window("01:30:00", "01:30:00", "America/New_York")
    start, end = utc(2026, 10, 30), utc(2026, 11, 3)
    assert maintenance_overlap(window, start, end) == end - start
    assert len(maintenance_intervals(window, start, end)) == 1


# -------------------------------------------------------------------- overlap


def test_overlap_clips_both_ends() -> None:
    window = Window("01:00:00", "03:00:00", "UTC", ["mon", "tue", "wed", "thu", "fri"])
    monday, next_monday = utc(2026, 1, 5), utc(2026, 1, 12)
    assert maintenance_overlap(window, monday, next_monday) == 10 * HOUR
    assert maintenance_overlap(window, monday.replace(hour=2), next_monday) == 9 * HOUR
    assert maintenance_overlap(window, monday, monday.replace(hour=2)) == HOUR
    assert maintenance_overlap(window, monday.replace(hour=5), monday.replace(hour=4)) == (
        timedelta(0)
    )


def test_a_monitor_is_a_window() -> None:
    monitor = Monitor(
        maintenance_from="01:00:00",
        maintenance_to="02:00:00",
        maintenance_timezone="Asia/Kolkata",
        maintenance_days=["tue"],
    )
    assert in_maintenance(monitor, utc(2026, 1, 5, 20))  # Tuesday 01:30 IST


ZONES = ["UTC", "Europe/Prague", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]
clock_times = st.builds(
    lambda h, m: f"{h:02d}:{m:02d}:00", st.integers(0, 23), st.sampled_from([0, 10, 30, 45])
)
windows = st.builds(
    Window,
    clock_times,
    clock_times,
    st.sampled_from(ZONES),
    st.lists(st.sampled_from(WEEKDAYS), unique=True),
)
# Around every DST change of 2026 in the zones above, and ordinary days.
instants = st.builds(
    lambda base, minutes: base + timedelta(minutes=minutes),
    st.sampled_from(
        [
            utc(2026, 1, 5),
            utc(2026, 3, 7),
            utc(2026, 3, 28),
            utc(2026, 4, 3),
            utc(2026, 10, 2),
            utc(2026, 10, 24),
            utc(2026, 10, 31),
        ]
    ),
    st.integers(0, 3 * 24 * 60),
)


@settings(max_examples=300, deadline=None)
@given(window=windows, at=instants)
def test_the_three_views_agree(window: Window, at: datetime) -> None:
    inside = in_maintenance(window, at)
    assert inside == (maintenance_overlap(window, at, at + SECOND) == SECOND)
    end = maintenance_end(window, at)
    assert (end is not None) == inside
    if end is not None:
        assert end > at
        assert maintenance_overlap(window, at, end) == end - at
        if end < at + timedelta(days=7):
            assert not in_maintenance(window, end)


@settings(max_examples=200, deadline=None)
@given(window=windows, at=instants, hours=st.integers(0, 72))
def test_overlap_is_additive_and_bounded(window: Window, at: datetime, hours: int) -> None:
    middle, end = at + timedelta(hours=hours), at + timedelta(hours=2 * hours)
    whole = maintenance_overlap(window, at, end)
    assert whole == maintenance_overlap(window, at, middle) + maintenance_overlap(
        window, middle, end
    )
    assert timedelta(0) <= whole <= end - at


@pytest.mark.parametrize("zone", ZONES)
def test_a_daily_window_covers_its_wall_clock_length_on_ordinary_days(zone: str) -> None:
    window = Window("22:15:00", "01:45:00", zone)
    assert night(window, utc(2026, 1, 10)) + night(window, utc(2026, 1, 11)) == 7 * HOUR


@pytest.mark.parametrize("value", ["09:00", "09:00:00", " 09:00 ", "0900"])
def test_a_time_of_day_is_normalised(value: str) -> None:
    assert check_clock_time(value) == "09:00:00"


@pytest.mark.parametrize(
    "value",
    [
        "24:00",
        "23:59:60",
        "09:00:00Z",
        "09:00+01:00",
        "09:00:00.5",
        "\u0660\u0669:\u0660\u0660",  # Arabic-Indic digits
        "nan",
        "x" * 5000,
        "2026-01-01T09:00:00",
        "",
    ],
)
def test_anything_else_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="must be a time of day"):
        check_clock_time(value)
