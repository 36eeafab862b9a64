"""The pure pieces of the public pages: the overall state, the day runs, the chart, texts."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from watchpost.public_pages.bars import chart, day_runs, duration, hour_runs, local_time
from watchpost.public_pages.caching import etag
from watchpost.public_pages.templates import style_text
from watchpost.public_pages.view import Day, Hour, Point, overall_state


@pytest.mark.parametrize(
    ("statuses", "state"),
    [
        ([], "operational"),
        (["not_monitored"], "operational"),
        (["operational", "not_monitored"], "operational"),
        (["downtime", "not_monitored"], "major_outage"),
        (["downtime", "operational"], "partial_outage"),
        (["degraded", "maintenance"], "degraded"),
        (["maintenance", "operational"], "maintenance"),
    ],
)
def test_overall_state(statuses: list[str], state: str) -> None:
    assert overall_state(statuses) == state


def _days(*specs: tuple[str, int]) -> list[Day]:
    first = date(2026, 2, 26)
    return [
        Day(first + timedelta(days=n), status, down, 0) for n, (status, down) in enumerate(specs)
    ]


def test_runs_join_equal_days_and_keep_every_day() -> None:
    days = _days(
        ("not_monitored", 0),
        ("operational", 0),
        ("operational", 0),
        ("downtime", 240),
        ("downtime", 7200),
        ("operational", 0),
        ("degraded", 0),
    )
    runs = day_runs(days)
    assert [(r.start, r.length, r.cls) for r in runs] == [
        (1, 5, "o"),  # the plain days' rectangle, beneath the rest
        (0, 1, "n"),
        (3, 1, "d1"),
        (4, 1, "d3"),
        (6, 1, "g"),
    ]
    assert runs[0].title == "27 Feb\u20133 Mar: no downtime but on marked days"
    assert runs[2].title == "1 Mar: 4 min down"
    assert runs[3].title == "2 Mar: 2 h down"
    assert runs[4].title == "4 Mar: no downtime, degraded"


def test_a_single_plain_stretch_is_its_own_run() -> None:
    runs = day_runs(_days(("operational", 0), ("operational", 0), ("downtime", 30)))
    assert [(r.start, r.length, r.cls) for r in runs] == [(0, 2, "o"), (2, 1, "d1")]
    assert runs[0].title == "26\u201327 Feb (2 days): no downtime"
    assert runs[1].title == "28 Feb: 30 s down"


def test_hour_runs() -> None:
    start = datetime(2026, 3, 15, 10, tzinfo=UTC)
    hours = [
        Hour(start, 0, 0),
        Hour(start + timedelta(hours=1), 60, 0),
        Hour(start + timedelta(hours=2), 60, 30),
    ]
    runs = hour_runs(hours, ZoneInfo("Europe/Berlin"))
    assert [(r.cls, r.title) for r in runs] == [
        ("n", "11:00 to 12:00 CET: no data (not monitored)"),
        ("o", "12:00 to 13:00 CET: all 60 checks passed"),
        ("d3", "13:00 to 14:00 CET: 30 of 60 checks failed"),
    ]


def test_chart_points_follow_the_days() -> None:
    days = [date(2026, 3, d) for d in range(1, 8)]
    points = [Point(date(2026, 3, 2), 100, 50, 200), Point(date(2026, 3, 6), 200, 150, 400)]
    drawn = chart(points, days)
    assert drawn is not None
    assert drawn.points.split() == ["1,22", "5,4"]
    assert (drawn.avg_ms, drawn.min_ms, drawn.max_ms) == (150, 50, 400)
    assert chart([], days) is None


def test_texts() -> None:
    assert [duration(s) for s in (5, 60, 3599, 3600, 7380)] == [
        "5 s",
        "1 min",
        "1 h",
        "1 h",
        "2 h 3 min",
    ]
    when = datetime(2026, 7, 1, 12, 5, tzinfo=UTC)
    assert local_time(when, ZoneInfo("America/New_York")) == "1 Jul 2026, 08:05 EDT"
    assert style_text("a</style><b>") == "a\\3C /style>\\3C b>"
    assert etag(b"x") == etag(b"x") != etag(b"y")
    assert etag(b"x").startswith('"') and etag(b"x").endswith('"')
