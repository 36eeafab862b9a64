"""The response-time chart: SVG that parses, names itself, marks down periods, and uses
classes only (the console's CSP forbids inline styles)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

import pytest

from watchpost.console.charts import response_chart_svg
from watchpost.console.series import Point

SVG = "{http://www.w3.org/2000/svg}"
START = datetime(2026, 3, 1, 6, tzinfo=UTC)


def parse(markup: str) -> ET.Element:
    root = ET.fromstring(markup)  # noqa: S314 -- our own output, in a test
    assert root.tag == f"{SVG}svg"
    for element in root.iter():
        assert "style" not in element.attrib, element
        assert element.tag not in (f"{SVG}style", f"{SVG}script", f"{SVG}foreignObject")
    return root


def hourly(values: list[float | None], down: frozenset[int] = frozenset()) -> list[Point]:
    return [Point(START + timedelta(hours=k), ms, k in down) for k, ms in enumerate(values)]


def texts(root: ET.Element, css_class: str) -> list[str]:
    return [
        element.text or ""
        for element in root.iter(f"{SVG}text")
        if css_class in element.get("class", "").split()
    ]


def of_class(root: ET.Element, css_class: str) -> list[ET.Element]:
    return [e for e in root.iter() if css_class in e.get("class", "").split()]


def test_an_accessible_image_named_response_time() -> None:
    root = parse(response_chart_svg(hourly([120.0] * 25), label="last 24 hours"))
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Response time, last 24 hours"
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == "Response time, last 24 hours"
    description = root.find(f"{SVG}desc")
    assert description is not None and "120 ms" in (description.text or "")
    assert of_class(root, "chart-axis") and len(of_class(root, "chart-grid")) == 4


def test_axes_say_milliseconds_and_round_times() -> None:
    values: list[float | None] = [float(100 + 10 * k) for k in range(25)]  # up to 340 ms
    root = parse(response_chart_svg(hourly(values), label="last 24 hours"))
    assert texts(root, "chart-label")[:3] == ["0 ms", "250 ms", "500 ms"]
    times = texts(root, "chart-label")[3:]
    assert times and all(re.fullmatch(r"\d\d:00", t) for t in times), times
    assert all(int(t[:2]) % 6 == 0 for t in times)  # every 6 hours over a day

    month = [Point(START + timedelta(hours=4 * k), 2500.0, False) for k in range(180)]
    root = parse(response_chart_svg(month, label="last 30 days"))
    assert texts(root, "chart-label")[:3] == ["0 s", "1.25 s", "2.5 s"]
    days = texts(root, "chart-label")[3:]
    assert days and all(re.fullmatch(r"\d\d [A-Z][a-z]{2}", t) for t in days), days


def test_the_line_breaks_where_no_check_was_timed_and_stays_in_the_plot() -> None:
    values: list[float | None] = [100, 200, None, 150, 160, 170, None, None, 90, None, 80, 85]
    root = parse(response_chart_svg(hourly(values), label="x", width=720, height=180))
    (path,) = [e for e in of_class(root, "chart-line") if e.tag == f"{SVG}path"]
    runs = path.get("d", "").split("M")[1:]
    assert [len(run.split("L")) for run in runs] == [2, 3, 2]
    (dot,) = [e for e in of_class(root, "chart-line") if e.tag == f"{SVG}circle"]  # the 90
    coordinates = [
        (float(x), float(y)) for run in runs for x, y in (pair.split() for pair in run.split("L"))
    ] + [(float(dot.get("cx", "")), float(dot.get("cy", "")))]
    assert all(0 <= x <= 720 and 0 <= y <= 180 for x, y in coordinates)
    assert sorted(x for x, _ in coordinates) == [x for x, _ in sorted(coordinates)]
    highest = min(coordinates, key=lambda c: c[1])
    assert highest == coordinates[1]  # 200 ms is the highest point


def test_down_periods_are_marked_one_mark_per_run() -> None:
    values: list[float | None] = [100.0] * 24
    root = parse(response_chart_svg(hourly(values, down=frozenset({3, 4, 5, 20})), label="x"))
    marks = of_class(root, "chart-down")
    assert len(marks) == 2 and all(mark.tag == f"{SVG}rect" for mark in marks)
    first, second = marks
    assert float(first.get("width", "")) == pytest.approx(
        3 * float(second.get("width", "")), abs=0.2
    )
    tooltip = first.find(f"{SVG}title")
    assert tooltip is not None
    assert tooltip.text == "Down between 2026-03-01 09:00 and 2026-03-01 12:00 UTC"
    description = root.find(f"{SVG}desc")
    assert description is not None and "down in 4 of 24 periods" in (description.text or "")


def test_an_empty_series_says_so() -> None:
    for points in ([], hourly([None] * 24), hourly([None] * 24, down=frozenset({2}))):
        root = parse(response_chart_svg(points, label="last 7 days"))
        name = root.get("aria-label", "")
        assert name == "Response time, last 7 days: no checks in this period"
        assert texts(root, "chart-empty") == ["No checks in this period"]
        assert not [e for e in of_class(root, "chart-line")]


def test_the_label_is_escaped() -> None:
    root = parse(response_chart_svg(hourly([1.0, 2.0]), label='<b>"24 h" & more</b>'))
    assert root.get("aria-label") == 'Response time, <b>"24 h" & more</b>'
