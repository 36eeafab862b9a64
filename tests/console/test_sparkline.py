"""The sparkline SVG: an accessible image, no inline style, red marks only for down hours."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from watchpost.console.sparkline import availability_text, sparkline_svg

SVG = "{http://www.w3.org/2000/svg}"
LABEL = "Response time, last 24 hours"


def parse(markup: str) -> ElementTree.Element:
    return ElementTree.fromstring(markup)  # noqa: S314 (our own output)


def test_an_image_with_its_name_and_no_inline_style() -> None:
    values: list[float | None] = [100.0 + n for n in range(24)]
    svg = parse(sparkline_svg(values, [False] * 24, label=LABEL))
    assert svg.get("role") == "img" and svg.get("aria-label") == LABEL
    assert (svg.get("width"), svg.get("height")) == ("120", "24")
    assert svg.findtext(f"{SVG}title") == LABEL
    assert all("style" not in element.attrib for element in svg.iter())
    (line,) = svg.findall(f"{SVG}polyline")
    assert line.get("class") == "spark-line"
    points = [tuple(map(float, p.split(","))) for p in (line.get("points") or "").split()]
    assert len(points) == 24
    ys = [y for _, y in points]
    assert ys == sorted(ys, reverse=True)  # slower is higher: y grows downwards
    assert svg.findall(f"{SVG}rect") == []


def test_down_hours_are_marked_and_missing_hours_break_the_line() -> None:
    values: list[float | None] = [10.0] * 24
    values[5] = values[6] = None
    values[20] = None
    down = [n in (3, 17) for n in range(24)]
    svg = parse(sparkline_svg(values, down, label=LABEL))
    runs = [len((line.get("points") or "").split()) for line in svg.findall(f"{SVG}polyline")]
    assert runs == [5, 13, 3]
    marks = svg.findall(f"{SVG}rect")
    assert [m.get("class") for m in marks] == ["spark-down", "spark-down"]
    assert [float(m.get("x") or "") for m in marks] == [15.0, 85.0]


def test_no_data_and_a_lone_hour() -> None:
    empty = parse(sparkline_svg([None] * 24, [False] * 24, label=LABEL))
    assert list(empty.iter(f"{SVG}polyline")) == []
    lone = parse(sparkline_svg([None] * 23 + [40.0], [False] * 23 + [True], label=LABEL))
    (line,) = lone.findall(f"{SVG}polyline")
    assert len((line.get("points") or "").split()) == 2  # drawn, however short


def test_the_label_is_escaped() -> None:
    markup = str(sparkline_svg([1.0], [False], label='<script>"x"</script>'))
    assert "<script>" not in markup
    assert parse(markup).get("aria-label") == '<script>"x"</script>'
    assert not re.search(r"\bon\w+=", markup)


def test_availability_text() -> None:
    assert availability_text(None) == "—"
    assert availability_text(100.0) == "100.00 %"
    assert availability_text(99.98) == "99.98 %"
    assert availability_text(99.999) == "99.99 %"  # never rounded up to 100
    assert availability_text(0.0) == "0.00 %"
