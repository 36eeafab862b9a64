"""A heartbeat's history chart: a state timeline in SVG that parses, names and describes
itself, draws one band per run of slots in one state with its times as a tooltip, and uses
classes only (the console's CSP forbids inline styles); and the slots series.py makes of
the hourly rollups for each range."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from tests.console.test_charts import SVG, of_class, parse, texts
from watchpost.console.series import RANGES, Slot, slots
from watchpost.console.state_chart import LEFT, RIGHT, duration_text, state_chart_svg

START = datetime(2026, 3, 1, 6, tzinfo=UTC)
HOUR = 3600.0
PLOT = 720 - LEFT - RIGHT
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def up(k: int) -> Slot:
    return Slot(START + timedelta(hours=k), HOUR, 0.0, 0.0, 0)


def down(k: int) -> Slot:
    return Slot(START + timedelta(hours=k), 0.0, HOUR, 0.0, 60)


def maintenance(k: int) -> Slot:
    return Slot(START + timedelta(hours=k), 0.0, 0.0, HOUR, 0)


def nothing(k: int) -> Slot:
    return Slot(START + timedelta(hours=k), 0.0, 0.0, 0.0, 0)


def bands(root: ET.Element) -> list[tuple[str, float, float, str]]:
    """(state, x, width, tooltip) of each band, left to right."""
    found = []
    for rect in root.iter(f"{SVG}rect"):
        (state,) = [c.removeprefix("chart-state-") for c in rect.get("class", "").split()]
        title = rect.find(f"{SVG}title")
        assert title is not None
        found.append(
            (state, float(rect.get("x", "")), float(rect.get("width", "")), title.text or "")
        )
    return found


def description(root: ET.Element) -> str:
    desc = root.find(f"{SVG}desc")
    assert desc is not None
    return desc.text or ""


def test_all_up_is_one_band_named_and_described() -> None:
    root = parse(state_chart_svg([up(k) for k in range(24)], label="last 24 hours"))
    assert root.get("role") == "img"
    assert root.get("aria-label") == "History, last 24 hours"
    assert "chart-states" in root.get("class", "").split()
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == "History, last 24 hours"
    assert description(root) == "Up 100.0% of the watched time; never down."
    ((state, x, width, tooltip),) = bands(root)
    assert state == "up" and x == LEFT and width == PLOT  # the whole plot
    assert tooltip == "Up, 2026-03-01 06:00 to 2026-03-02 06:00 UTC: up 1 d"
    assert of_class(root, "chart-axis") and not texts(root, "chart-empty")


def test_a_down_period_is_one_red_band_between_up_ones() -> None:
    hours = [down(k) if k in (3, 4, 5) else up(k) for k in range(24)]
    root = parse(state_chart_svg(hours, label="last 24 hours"))
    found = bands(root)
    assert [state for state, *_ in found] == ["up", "down", "up"]
    (_, x0, w0, _), (_, x1, w1, tooltip), (_, x2, _, _) = found
    assert x0 + w0 == pytest.approx(x1, abs=0.1) and x1 + w1 == pytest.approx(x2, abs=0.1)
    assert w1 == pytest.approx(3 * PLOT / 24, abs=0.1)
    assert tooltip == "Down, 2026-03-01 09:00 to 2026-03-01 12:00 UTC: down 3 h"
    assert description(root) == "Up 87.5% of the watched time; down 3 h, in 3 of 24 periods."


def test_a_slot_partly_down_is_down_and_its_tooltip_tells_both() -> None:
    mixed = Slot(START, 2700.0, 900.0, 0.0, 15)
    root = parse(state_chart_svg([mixed, up(1)], label="x"))
    (state, _, _, tooltip), _ = bands(root)
    assert state == "down"
    assert tooltip.endswith(": up 45 min, down 15 min")


def test_no_data_says_so() -> None:
    for hours in ([], [nothing(k) for k in range(24)]):
        root = parse(state_chart_svg(hours, label="last 7 days"))
        assert root.get("aria-label") == "History, last 7 days: no data in this period"
        assert texts(root, "chart-empty") == ["No data in this period"]
        assert root.find(f"{SVG}desc") is None
        assert [state for state, *_ in bands(root)] == (["none"] if hours else [])


def test_paused_or_unwatched_time_is_no_data_and_maintenance_its_own_band() -> None:
    hours = [nothing(k) if k < 4 else maintenance(k) if k in (10, 11) else up(k) for k in range(24)]
    root = parse(state_chart_svg(hours, label="last 24 hours"))
    found = bands(root)
    assert [state for state, *_ in found] == ["none", "up", "maintenance", "up"]
    assert found[0][3] == (
        "No data, 2026-03-01 06:00 to 2026-03-01 10:00 UTC: "
        "not watched (paused, or waiting for its first ping)"
    )
    assert found[2][3].endswith(": in maintenance 2 h")
    assert description(root) == (
        "Up 90.0% of the watched time; never down; in maintenance 2 h; no data for 4 h."
    )
    assert not texts(root, "chart-empty")


def test_a_slot_is_down_before_maintenance_before_up() -> None:
    at = START
    assert Slot(at, HOUR, 1.0, HOUR, 0).state == "down"
    assert Slot(at, HOUR, 0.0, 0.0, 1).state == "down"  # a failure without attributed time
    assert Slot(at, HOUR, 0.0, 1.0, 0).state == "maintenance"
    assert Slot(at, 1.0, 0.0, 0.0, 0).state == "up"
    assert Slot(at, 0.0, 0.0, 0.0, 0).state == "none"


def _rows(now: datetime, states: dict[int, str]) -> list[tuple[int, float, float, float, int]]:
    """Hourly rollup rows as series.py reads them for a timeline (hour, up, down and
    maintenance seconds, failures), `states` by hours before `now`'s hour."""
    current = int((now - EPOCH).total_seconds() // 3600)
    columns = {
        "up": (HOUR, 0.0, 0.0, 0),
        "down": (0.0, HOUR, 0.0, 60),
        "maintenance": (0.0, 0.0, HOUR, 0),
    }
    return [(current - ago, *columns[states[ago]]) for ago in sorted(states, reverse=True)]


@pytest.mark.parametrize(
    ("range_", "count", "label"),
    [
        ("24h", 25, r"\d\d:00"),
        ("7d", 169, r"\d\d [A-Z][a-z]{2}"),
        ("30d", 181, r"\d\d [A-Z][a-z]{2}"),
    ],
)
def test_each_range(range_: str, count: int, label: str) -> None:
    now = datetime(2026, 3, 31, 13, 30, tzinfo=UTC)
    span, width = RANGES[range_]
    watched = {ago: "up" for ago in range(24 * 30)} | {2: "down", 30: "maintenance"}
    series = slots(_rows(now, watched), now=now, span=span, width=width)
    assert len(series) == count and series[-1].at <= now < series[-1].at + width
    assert all(b.at - a.at == width for a, b in pairwise(series))
    root = parse(state_chart_svg(series, label=f"last {range_}"))
    found = bands(root)
    assert sum(w for _, _, w, _ in found) == pytest.approx(PLOT, abs=0.5)
    states = [state for state, *_ in found]
    shown = "down" in states, "maintenance" in states
    assert shown == (True, range_ != "24h")  # 30 hours ago is outside the day
    times = texts(root, "chart-label")
    assert 2 <= len(times) <= 6 and all(re.fullmatch(label, t) for t in times), times
    if range_ == "30d":  # 4-hour slots: the down hour colours its whole slot
        (down_band,) = [b for b in found if b[0] == "down"]
        assert down_band[2] == pytest.approx(PLOT / 181, abs=0.1)
        assert down_band[3].endswith(": up 3 h, down 1 h")


def test_slots_sum_the_hours_of_a_slot() -> None:
    now = datetime(2026, 3, 31, 13, 30, tzinfo=UTC)
    rows = _rows(now, {5: "up", 6: "down", 7: "maintenance"})
    span, width = RANGES["30d"]
    series = slots(rows, now=now, span=span, width=width)
    touched = [s for s in series if s.state != "none"]
    assert sum(s.up_s for s in touched) == HOUR and sum(s.failures for s in touched) == 60
    assert sum(s.down_s + s.maintenance_s + s.up_s for s in series) == 3 * HOUR


def test_durations_read_as_people_say_them() -> None:
    assert [duration_text(s) for s in (20, 60, 2700, 3600, 4500, 86400, 97200)] == [
        "under a minute",
        "1 min",
        "45 min",
        "1 h",
        "1 h 15 min",
        "1 d",
        "1 d 3 h",
    ]


def test_the_label_is_escaped() -> None:
    root = parse(state_chart_svg([up(0), up(1)], label='<b>"24 h" & more</b>'))
    assert root.get("aria-label") == 'History, <b>"24 h" & more</b>'
