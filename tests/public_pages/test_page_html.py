"""What a visitor sees on a page: header, state, sections, widgets, days, availability and
the page's rules (min_incident_length, timezone, noindex, custom CSS, theme)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.public_pages.html import Node, bar_runs
from tests.public_pages.pages import (
    change_page,
    new_monitor,
    new_page,
    new_report,
    new_resource,
    new_section,
    visit,
)
from tests.public_pages.seed import incident, observe
from watchpost.clock import FrozenClock

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _now(clock: FrozenClock) -> None:
    clock.set(NOW)


def items(doc: Node) -> dict[str, Node]:
    """Each resource's <li> by its name."""
    return {
        li.find("span", cls="name").text: li
        for li in doc.find_all("li")
        if li.find_all("span", cls="name")
    }


async def test_header_logo_links_and_announcement(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(
        api,
        "acme",
        theme="system",
        company_url="https://acme.test",
        logo_url="https://acme.test/logo.png",
        dark_logo_url="https://acme.test/logo-dark.png",
        contact_url="mailto:help@acme.test",
        announcement="Planned work on <Sunday>",
        navigation_links=[
            {"text": "Blog", "href": "https://blog.acme.test"},
            {"text": "Past incidents", "href": "/incidents"},
        ],
    )
    response, doc = await visit(client, "/status/acme")
    header = doc.find("header")
    assert header.find("a", cls="brand").attrs["href"] == "https://acme.test"
    picture = header.find("picture")
    source = picture.find("source")
    assert source.attrs["srcset"] == "https://acme.test/logo-dark.png"
    assert source.attrs["media"] == "(prefers-color-scheme: dark)"
    assert picture.find("img").attrs == {"src": "https://acme.test/logo.png", "alt": "Acme Corp"}
    links = {a.text: a.attrs["href"] for a in doc.find("nav").find_all("a")}
    assert links["Blog"] == "https://blog.acme.test"
    assert links["Past incidents"] == "/status/acme/history"
    assert links["Contact"] == "mailto:help@acme.test"
    assert doc.find("aside", cls="note").text == "Planned work on <Sunday>"
    assert "&lt;Sunday&gt;" in response.text
    # landmarks
    assert doc.find("main").attrs["id"] == "main" and doc.find_all("footer")
    assert doc.find("html").attrs["data-theme"] == "system"


async def test_a_forced_dark_theme_uses_the_dark_logo(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(
        api,
        "acme",
        theme="dark",
        logo_url="https://acme.test/logo.png",
        dark_logo_url="https://acme.test/logo-dark.png",
    )
    _, doc = await visit(client, "/status/acme")
    assert doc.find("html").attrs["data-theme"] == "dark"
    assert doc.find("img").attrs["src"] == "https://acme.test/logo-dark.png"
    assert not doc.find("picture").find_all("source")
    assert doc.find("meta", name="color-scheme").attrs["content"] == "dark"


async def test_no_external_requests_and_no_script(api: Api, client: httpx.AsyncClient) -> None:
    page_id = await new_page(api, "acme")
    section = await new_section(api, page_id, "Core")
    await new_resource(api, page_id, status_page_section_id=section, public_name="API")
    response, doc = await visit(client, "/status/acme")
    assert not doc.find_all("script") and not doc.find_all("link")
    assert not doc.find_all("img")  # no logo set: nothing to load
    assert "http://" not in response.text and "https://" not in response.text.replace(
        "http://www.w3.org", ""
    )


async def test_sections_and_resources_in_order(api: Api, client: httpx.AsyncClient) -> None:
    page_id = await new_page(api, "acme")
    first = await new_section(api, page_id, "Frontend")
    second = await new_section(api, page_id, "Backend")
    await new_resource(api, page_id, status_page_section_id=second, public_name="Database")
    await new_resource(api, page_id, status_page_section_id=first, public_name="Web")
    await new_resource(api, page_id, status_page_section_id=second, public_name="Queue")
    await new_resource(api, page_id, status_page_section_id=second, public_name="Cache", position=0)
    _, doc = await visit(client, "/status/acme")
    sections = [
        s
        for s in doc.find("main").find_all("section")
        if s.attrs.get("aria-labelledby", "").startswith("s")
    ]
    assert [s.find("h2").text for s in sections] == ["Frontend", "Backend"]
    assert list(items(sections[1])) == ["Cache", "Database", "Queue"]


@pytest.mark.parametrize(
    ("statuses", "state", "label"),
    [
        ((), "operational", "All systems operational"),
        (("downtime", "resolved"), "partial_outage", "Partial outage"),
        (("downtime", "downtime"), "major_outage", "Major outage"),
        (("degraded", "resolved"), "degraded", "Degraded performance"),
        (("maintenance",), "maintenance", "Under maintenance"),
    ],
)
async def test_the_overall_state(
    api: Api, client: httpx.AsyncClient, statuses: tuple[str, ...], state: str, label: str
) -> None:
    page_id = await new_page(api, "acme")
    section = await new_section(api, page_id, "Core")
    ids = [
        await new_resource(api, page_id, status_page_section_id=section, public_name=name)
        for name in ("One", "Two")
    ]
    if statuses:
        affected = [
            {"status_page_resource_id": rid, "status": status}
            for rid, status in zip(ids, statuses, strict=False)
        ]
        extra = {}
        if "maintenance" in statuses:
            extra = {
                "report_type": "maintenance",
                "ends_at": (NOW + timedelta(hours=1)).isoformat(),
            }
        await new_report(api, page_id, title="Trouble", affected_resources=affected, **extra)
    _, doc = await visit(client, "/status/acme")
    banner = doc.find("section", cls="state")
    assert banner.attrs["data-state"] == state and banner.text == label
    # each resource's status is told in words, not colour alone
    shown = {name: li.find("span", cls="st").text for name, li in items(doc).items()}
    expected = {"downtime": "Downtime", "degraded": "Degraded", "maintenance": "Maintenance"}
    for name, status in zip(("One", "Two"), statuses, strict=False):
        assert shown[name] == expected.get(status, "Operational")


async def _monitor_resource(app: FastAPI, api: Api, page_id: str, widget: str, name: str) -> int:
    section = await new_section(api, page_id, f"{name} section")
    monitor = await new_monitor(api, name)
    await new_resource(
        api,
        page_id,
        status_page_section_id=section,
        resource_type="Monitor",
        resource_id=monitor,
        widget_type=widget,
        public_name=name,
    )
    return monitor


async def test_history_bars_colour_days_by_downtime_with_tooltips(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme", history=30)
    monitor = await _monitor_resource(app, api, page_id, "history", "Website")
    # observed for the last 10 days only; three incidents of 3 min, 30 min and 2 h
    await observe(app, api.team_id, monitor, start=NOW - timedelta(days=10), end=NOW)
    for days_ago, minutes in ((8, 3), (6, 30), (4, 120)):
        start = NOW - timedelta(days=days_ago)
        await incident(app, api.team_id, monitor, start, start + timedelta(minutes=minutes))
    _, doc = await visit(client, "/status/acme")
    li = items(doc)["Website"]
    svg = li.find("svg", cls="bars")
    assert svg.attrs["data-bars"] == "30"
    runs = bar_runs(svg)
    covered = set()
    for left, width, _, _ in runs:
        covered |= set(range(left, left + width))
    assert covered == set(range(30))  # every day has a bar
    by_class: dict[str, list[str]] = {}
    for _, _, cls, title in runs:
        by_class.setdefault(cls, []).append(title)
    assert by_class["d1"] == ["7 Mar: 3 min down"]  # the year of the last day is left out
    assert by_class["d2"] == ["9 Mar: 30 min down"]
    assert by_class["d3"] == ["11 Mar: 2 h down"]
    assert by_class["o"] == ["5\u201315 Mar: no downtime but on marked days"]
    # days before monitoring began are "no data", never 100%
    assert by_class["n"] == ["14 Feb\u20134 Mar (19 days): no data (not monitored)"]
    axis = li.find("p", cls="ax").text
    assert "uptime over 30 days" in axis and "11 of 30 days monitored" in axis
    assert "100.00%" not in axis
    assert li.find("span", cls="st").text == "Operational"


async def test_nothing_observed_is_no_data_not_100(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme")
    await _monitor_resource(app, api, page_id, "history", "Website")
    _, doc = await visit(client, "/status/acme")
    li = items(doc)["Website"]
    assert li.find("span", cls="st").text == "No data"
    assert "No data in 90 days" in li.find("p", cls="ax").text
    assert "%" not in li.text


async def test_plain_widget_shows_only_the_current_state(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme")
    monitor = await _monitor_resource(app, api, page_id, "plain", "Website")
    await observe(app, api.team_id, monitor, start=NOW - timedelta(days=1), end=NOW)
    await incident(app, api.team_id, monitor, NOW - timedelta(minutes=10), None)
    _, doc = await visit(client, "/status/acme")
    li = items(doc)["Website"]
    assert not li.find_all("svg")
    assert li.find("span", cls="st").text == "Downtime"
    assert doc.find("section", cls="state").attrs["data-state"] == "major_outage"


async def test_intraday_history_is_24_hour_bars(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme")
    monitor = await _monitor_resource(app, api, page_id, "intraday_history", "Website")
    await observe(
        app,
        api.team_id,
        monitor,
        start=NOW - timedelta(hours=5),
        end=NOW,
        every=timedelta(minutes=10),
    )
    _, doc = await visit(client, "/status/acme")
    svg = items(doc)["Website"].find("svg", cls="bars")
    assert svg.attrs["data-bars"] == "24"
    titles = [title for _, _, _, title in bar_runs(svg)]
    assert titles[0] == "13:00 to 07:00 UTC: no data (not monitored)"
    assert any("checks passed" in t for t in titles)


async def test_response_times_chart_from_the_rollups(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme", history=7)
    monitor = await _monitor_resource(app, api, page_id, "response_times", "Website")
    await observe(
        app,
        api.team_id,
        monitor,
        start=NOW - timedelta(days=3),
        end=NOW - timedelta(days=2),
        latency_ms=100,
    )
    await observe(app, api.team_id, monitor, start=NOW - timedelta(days=1), end=NOW, latency_ms=300)
    _, doc = await visit(client, "/status/acme")
    li = items(doc)["Website"]
    assert li.find("svg", cls="bars")  # the day bars, and the chart under them
    chart = li.find("svg", cls="chart")
    assert chart.attrs["role"] == "img" and "average" in chart.attrs["aria-label"]
    assert len(chart.find("polyline").attrs["points"].split()) >= 3
    text = li.find_all("p", cls="ax")[-1].text
    assert "fastest 100 ms, slowest 300 ms" in text


async def test_min_incident_length_hides_short_blips(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme", history=7, min_incident_length=300)
    monitor = await _monitor_resource(app, api, page_id, "history", "Website")
    await observe(app, api.team_id, monitor, start=NOW - timedelta(days=7), end=NOW)
    start = NOW - timedelta(days=2)
    await incident(app, api.team_id, monitor, start, start + timedelta(minutes=2))
    _, doc = await visit(client, "/status/acme")
    classes = {cls for _, _, cls, _ in bar_runs(items(doc)["Website"].find("svg", cls="bars"))}
    assert not classes & {"d1", "d2", "d3"}
    await change_page(api, page_id, min_incident_length=60)
    _, doc = await visit(client, "/status/acme")
    classes = {cls for _, _, cls, _ in bar_runs(items(doc)["Website"].find("svg", cls="bars"))}
    assert "d1" in classes


async def test_timezone_rules_the_days(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    clock.set(datetime(2026, 3, 15, 23, 30, tzinfo=UTC))
    page_id = await new_page(api, "acme", history=7, timezone="Asia/Tokyo")
    await _monitor_resource(app, api, page_id, "history", "Website")
    _, doc = await visit(client, "/status/acme")
    title = bar_runs(items(doc)["Website"].find("svg", cls="bars"))[0][3]
    assert title.startswith("10\u201316 Mar (7 days)")  # already the 16th in Tokyo
    assert "Times in Asia/Tokyo" in doc.find("footer").text


async def test_noindex_custom_css_and_theme(api: Api, client: httpx.AsyncClient) -> None:
    page_id = await new_page(api, "acme")
    _, doc = await visit(client, "/status/acme")
    assert not doc.find_all("meta", name="robots")
    css = "body{color:red}</style><script>alert(1)</script>"
    await change_page(api, page_id, hide_from_search_engines=True, custom_css=css, theme="light")
    response, doc = await visit(client, "/status/acme")
    assert doc.find("meta", name="robots").attrs["content"] == "noindex, nofollow"
    styles = doc.find_all("style")
    assert styles[-1].raw_text == "body{color:red}\\3C /style>\\3C script>alert(1)\\3C /script>"
    assert not doc.find_all("script")
    assert response.text.count("</style>") == 2
    assert doc.find("html").attrs["data-theme"] == "light"


async def test_fifty_resources_of_90_days_stay_under_60_kb(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme", history=90)
    sections = [await new_section(api, page_id, f"Section {n}") for n in range(5)]
    for n in range(50):
        monitor = await new_monitor(api, f"Service number {n}")
        await new_resource(
            api,
            page_id,
            status_page_section_id=sections[n % 5],
            resource_type="Monitor",
            resource_id=monitor,
            widget_type="response_times" if n % 10 == 0 else "history",
            public_name=f"Service number {n}",
        )
        await observe(
            app,
            api.team_id,
            monitor,
            start=NOW - timedelta(days=80),
            end=NOW,
            every=timedelta(days=1),
            latency_ms=120 + n,
        )
        for day in (5, 23, 47, 61):  # a few bad days each
            start = NOW - timedelta(days=day + n % 3)
            await incident(app, api.team_id, monitor, start, start + timedelta(minutes=day))
    response, doc = await visit(client, "/status/acme")
    assert len(items(doc)) == 50
    size = len(response.content)
    assert size < 60_000, size


async def test_a_group_has_intraday_bars_of_its_members_checks(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    from tests.factories.api import data
    from tests.factories.history import obs, write

    page_id = await new_page(api, "acme")
    group = int(data(await api.post("/api/v2/monitor-groups", {"name": "Web"}), 201)["id"])
    members = []
    for name in ("a", "b"):
        body = {"url": f"https://{name}.example.com", "monitor_group_id": group}
        members.append(int(data(await api.post("/api/v2/monitors", body), 201)["id"]))
    body = {
        "resource_type": "MonitorGroup",
        "resource_id": group,
        "widget_type": "intraday_history",
    }
    await new_resource(api, page_id, public_name="Web", **body)
    for member in members:
        await observe(
            app,
            api.team_id,
            member,
            start=NOW - timedelta(hours=3),
            end=NOW - timedelta(minutes=1),
            every=timedelta(minutes=30),
        )
    await write(app, [obs(api.team_id, NOW - timedelta(minutes=50), "down", subject_id=members[1])])
    _, doc = await visit(client, "/status/acme")
    svg = items(doc)["Web"].find("svg", cls="bars")
    assert svg.attrs["data-bars"] == "24"
    titles = [title for _, _, _, title in bar_runs(svg)]
    assert "09:00 to 11:00 UTC: all 4 checks passed" in titles  # two members, two an hour
    assert "11:00 to 12:00 UTC: 1 of 5 checks failed" in titles
