"""Status reports as visitors read them (current on top, the history by month, a page per
report) and the caching of every public answer (ETag, Cache-Control, 304)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.factories.api import TEST_PASSWORD, Api, data
from tests.public_pages.pages import PAGES, new_page, new_report, new_resource, new_section, visit
from watchpost.clock import FrozenClock
from watchpost.public_pages.caching import etag

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _now(clock: FrozenClock) -> None:
    clock.set(NOW)


def iso(when: datetime) -> str:
    return when.isoformat()


async def _page_with_reports(api: Api) -> tuple[str, dict[str, str]]:
    page_id = await new_page(api, "acme", timezone="Europe/Berlin")
    section = await new_section(api, page_id, "Core")
    api_id = await new_resource(api, page_id, status_page_section_id=section, public_name="API")
    web_id = await new_resource(api, page_id, status_page_section_id=section, public_name="Web")
    reports = {
        "ongoing": await new_report(
            api,
            page_id,
            title="API errors",
            message="We are looking into it",
            affected_resources=[{"status_page_resource_id": api_id, "status": "downtime"}],
            starts_at=iso(NOW - timedelta(hours=1)),
        ),
        "upcoming": await new_report(
            api,
            page_id,
            title="Database upgrade",
            report_type="maintenance",
            message="Planned",
            affected_resources=[{"status_page_resource_id": web_id, "status": "maintenance"}],
            starts_at=iso(NOW + timedelta(days=2)),
            ends_at=iso(NOW + timedelta(days=2, hours=2)),
        ),
        "february": await new_report(
            api,
            page_id,
            title="Slow checkout",
            message="Fixed",
            affected_resources=[{"status_page_resource_id": web_id, "status": "resolved"}],
            starts_at=iso(datetime(2026, 2, 10, 9, 0, tzinfo=UTC)),
        ),
        "january": await new_report(
            api,
            page_id,
            title="Network maintenance",
            report_type="maintenance",
            affected_resources=[{"status_page_resource_id": api_id, "status": "maintenance"}],
            starts_at=iso(datetime(2026, 1, 31, 23, 30, tzinfo=UTC)),  # 1 Feb in Berlin
            ends_at=iso(datetime(2026, 2, 1, 1, 0, tzinfo=UTC)),
        ),
    }
    return page_id, reports


async def test_current_reports_are_on_top(api: Api, client: httpx.AsyncClient) -> None:
    _, reports = await _page_with_reports(api)
    _, doc = await visit(client, "/status/acme")
    current = doc.find("section", aria_labelledby="current")
    titles = [a.text for a in current.find_all("a")]
    assert titles == ["API errors", "Database upgrade"]  # ongoing first, then upcoming
    assert "In progress" in current.text and "Scheduled" in current.text
    assert "We are looking into it" in current.text
    links = [a.attrs["href"] for a in current.find_all("a")]
    assert links[0] == f"/status/acme/reports/{reports['ongoing']}"
    # the report sets its resource's status
    assert doc.find("section", cls="state").attrs["data-state"] == "partial_outage"
    assert "Slow checkout" not in doc.text


async def test_history_lists_past_reports_by_month(api: Api, client: httpx.AsyncClient) -> None:
    await _page_with_reports(api)
    _, doc = await visit(client, "/status/acme/history")
    months = [s for s in doc.find("main").find_all("section")]
    assert [m.find("h2").text for m in months] == ["February 2026"]
    assert [a.text for a in months[0].find_all("a")] == ["Slow checkout", "Network maintenance"]
    assert "API errors" not in doc.text
    assert "1 Feb 2026, 00:30 CET" in doc.text  # the page's time zone rules dates


async def test_each_report_has_a_page_with_its_updates(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    page_id, reports = await _page_with_reports(api)
    report_path = f"{PAGES}/{page_id}/status-reports/{reports['ongoing']}"
    clock.advance(1800)
    api_resources = (await api.get(f"{PAGES}/{page_id}/resources")).json()["data"]
    api_id = next(r["id"] for r in api_resources if r["attributes"]["public_name"] == "API")
    data(
        await api.post(
            f"{report_path}/status-updates",
            {
                "message": "Fixed, <b>watching</b>",
                "affected_resources": [{"status_page_resource_id": api_id, "status": "resolved"}],
            },
        ),
        201,
    )
    _, doc = await visit(client, f"/status/acme/reports/{reports['ongoing']}")
    assert doc.find("h1").text == "API errors"
    updates = doc.find("ol", cls="upd").find_all("li")
    assert [u.find("p").text for u in updates] == [
        "Fixed, <b>watching</b>",
        "We are looking into it",
    ]
    assert "API: Resolved" in updates[0].text
    assert "Resolved" in doc.find("p", cls="t").text
    affected = doc.find("ul", cls="card")
    assert "API" in affected.text and "Resolved" in affected.text


async def test_reports_of_another_page_are_not_found(api: Api, client: httpx.AsyncClient) -> None:
    _, reports = await _page_with_reports(api)
    await new_page(api, "other")
    await visit(client, f"/status/other/reports/{reports['ongoing']}", 404)


async def test_every_answer_has_an_etag_and_cache_control(
    api: Api, client: httpx.AsyncClient
) -> None:
    await _page_with_reports(api)
    for path in ("/status/acme", "/status/acme/history", "/status/acme/nothing", "/status/zzz"):
        response = await client.get(path)
        assert response.headers["etag"] == etag(response.content), path
        assert response.headers["cache-control"], path
    response = await client.get("/status/acme")
    assert response.headers["cache-control"] == "public, max-age=30"
    assert "vary" not in response.headers


async def test_if_none_match_answers_304(api: Api, client: httpx.AsyncClient) -> None:
    await _page_with_reports(api)
    first = await client.get("/status/acme")
    tag = first.headers["etag"]
    for header in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        again = await client.get("/status/acme", headers={"If-None-Match": header})
        assert again.status_code == 304, header
        assert again.content == b"" and again.headers["etag"] == tag
    changed = await client.get("/status/acme", headers={"If-None-Match": '"other"'})
    assert changed.status_code == 200 and changed.content == first.content


async def test_a_change_changes_the_etag(api: Api, client: httpx.AsyncClient) -> None:
    page_id, _ = await _page_with_reports(api)
    before = (await client.get("/status/acme")).headers["etag"]
    data(await api.patch(f"{PAGES}/{page_id}", {"announcement": "New"}))
    after = await client.get("/status/acme", headers={"If-None-Match": before})
    assert after.status_code == 200 and after.headers["etag"] != before


async def test_head_has_the_headers_without_a_body(api: Api, client: httpx.AsyncClient) -> None:
    await _page_with_reports(api)
    get = await client.get("/status/acme")
    head = await client.head("/status/acme")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["etag"] == get.headers["etag"]
    assert head.headers["content-length"] == str(len(get.content))


async def test_protected_answers_are_private_and_revalidate(
    api: Api, client: httpx.AsyncClient
) -> None:
    await new_page(api, "secret", password_enabled=True, password=TEST_PASSWORD)
    await client.post("/status/secret/login", data={"password": TEST_PASSWORD})
    first = await client.get("/status/secret/history")
    assert first.headers["cache-control"] == "private, no-cache"
    assert first.headers["vary"] == "Cookie"
    again = await client.get(
        "/status/secret/history", headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and again.headers["cache-control"] == "private, no-cache"
    client.cookies.clear()
    locked = await client.get(
        "/status/secret/history", headers={"If-None-Match": first.headers["etag"]}
    )
    assert locked.status_code == 401  # no 304 for a visitor without the cookie
