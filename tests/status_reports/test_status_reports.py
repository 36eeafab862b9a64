from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import advance
from tests.factories.hostile_times import HOSTILE_TIMES, OUT_OF_RANGE_DAYS
from watchpost.status_pages import reports

PAGES = "/api/v2/status-pages"
START = "2026-01-01T00:00:00.000Z"
TIMES = ("starts_at", "ends_at", "published_at")


async def new_page(api: Api, subdomain: str = "acme") -> str:
    return str(data(await api.post(PAGES, {"subdomain": subdomain}), 201)["id"])


async def new_resource(api: Api, page_id: str, name: str = "API") -> str:
    body = {"public_name": name}
    return str(data(await api.post(f"{PAGES}/{page_id}/resources", body), 201)["id"])


async def create(api: Api, page_id: str, **body: Any) -> dict[str, Any]:
    response = await api.post(f"{PAGES}/{page_id}/status-reports", body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


def hit(rid: str, status: str) -> dict[str, str]:
    return {"status_page_resource_id": rid, "status": status}


async def resource_status(api: Api, page_id: str, rid: str) -> str:
    return str(data(await api.get(f"{PAGES}/{page_id}/resources/{rid}"))["attributes"]["status"])


async def page_state(api: Api, page_id: str) -> str:
    return str(data(await api.get(f"{PAGES}/{page_id}"))["attributes"]["aggregate_state"])


async def test_create_get_list_with_first_update(api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    body = await create(
        api,
        page,
        title="Database outage",
        message="We are looking into it",
        affected_resources=[hit(rid, "downtime")],
        notify_subscribers=False,
    )
    report = body["data"]
    assert report["type"] == "status_report"
    assert report["attributes"] == {
        "title": "Database outage",
        "report_type": "manual",
        "starts_at": START,
        "ends_at": None,
        "status_page_id": int(page),
        "affected_resources": [hit(rid, "downtime")],
        "aggregate_state": "downtime",
    }
    (first,) = body["included"]
    assert report["relationships"] == {
        "status_updates": {"data": [{"id": first["id"], "type": "status_update"}]}
    }
    assert first["type"] == "status_update"
    assert first["attributes"] == {
        "message": "We are looking into it",
        "published_at": START,
        "published_at_timezone": "UTC",
        "notify_subscribers": False,
        "status_report_id": int(report["id"]),
        "affected_resources": [hit(rid, "downtime")],
    }
    url = f"{PAGES}/{page}/status-reports/{report['id']}"
    assert (await api.get(url)).json() == body
    listed = (await api.get(f"{PAGES}/{page}/status-reports")).json()
    assert listed["data"] == [report]
    assert listed["pagination"]["next"] is None
    updates = (await api.get(f"{url}/status-updates")).json()["data"]
    assert updates == [first]
    assert data(await api.get(f"{url}/status-updates/{first['id']}")) == first


async def test_defaults_and_numeric_ids(api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    body = await create(
        api, page, affected_resources=[{"status_page_resource_id": int(rid), "status": "degraded"}]
    )
    attrs = body["data"]["attributes"]
    assert attrs["title"] == "" and attrs["report_type"] == "manual"
    assert attrs["affected_resources"] == [hit(rid, "degraded")]
    assert body["included"][0]["attributes"]["notify_subscribers"] is True
    assert body["included"][0]["attributes"]["message"] == ""


async def test_maintenance_window_times_as_sent(api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    body = await create(
        api,
        page,
        title="Upgrade",
        report_type="maintenance",
        starts_at="2026-01-02T10:00:00.000Z",
        ends_at="2026-01-02T12:00:00+00:00",
        published_at="2025-12-31T09:30:00.000Z",
        affected_resources=[hit(rid, "maintenance")],
    )
    attrs = body["data"]["attributes"]
    assert attrs["starts_at"] == "2026-01-02T10:00:00.000Z"
    assert attrs["ends_at"] == "2026-01-02T12:00:00.000Z"
    assert attrs["aggregate_state"] == "maintenance"
    assert body["included"][0]["attributes"]["published_at"] == "2025-12-31T09:30:00.000Z"


async def test_rules_are_422(api: Api, other_api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    other_page = await new_page(api, "other")
    foreign = await new_resource(api, other_page)
    url = f"{PAGES}/{page}/status-reports"
    cases: list[dict[str, Any]] = [
        {"title": "x", "unknown": 1},
        {"report_type": "automatic"},
        {"report_type": "maintenance", "affected_resources": [hit(rid, "maintenance")]},
        {
            "report_type": "maintenance",
            "ends_at": "2026-01-02T00:00:00Z",
            "affected_resources": [hit(rid, "downtime")],
        },
        {"affected_resources": [hit(rid, "maintenance")]},
        {"affected_resources": [hit(rid, "broken")]},
        {"affected_resources": [hit(foreign, "downtime")]},
        {"affected_resources": [hit("987654321", "downtime")]},
        {"affected_resources": [hit("abc", "downtime")]},
        {"affected_resources": [hit(rid, "downtime"), hit(rid, "degraded")]},
        {"affected_resources": [{"status_page_resource_id": rid}]},
        {"affected_resources": [{**hit(rid, "downtime"), "extra": 1}]},
        {"starts_at": "yesterday"},
        {"starts_at": "9999-12-31T23:59:59-01:00"},
        {"starts_at": "2026-01-02T00:00:00Z", "ends_at": "2026-01-01T00:00:00Z"},
        {"title": None},
        {"notify_subscribers": "yes"},
        {"affected_resources": "all"},
    ]
    for body in cases:
        errors(await api.post(url, body))
    assert (await api.get(url)).json()["data"] == []
    # another team's page is a 404, as a missing one
    assert (await other_api.post(url, {"title": "x"})).status_code == 404
    assert (await other_api.get(url)).status_code == 404


@pytest.mark.parametrize("value", [*HOSTILE_TIMES, *OUT_OF_RANGE_DAYS])
async def test_a_time_that_cannot_be_read_or_held_is_a_422_naming_it(api: Api, value: str) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    url = f"{PAGES}/{page}/status-reports"
    report = (await create(api, page, title="a", affected_resources=[hit(rid, "downtime")]))["data"]
    one = f"{url}/{report['id']}"
    updates = f"{one}/status-updates"
    first = f"{updates}/{(await api.get(updates)).json()['data'][0]['id']}"
    before = (await api.get(one)).json()
    sent = [
        *[(api.post, url, {"title": "b", name: value}, name) for name in TIMES],
        *[(api.patch, one, {name: value}, name) for name in ("starts_at", "ends_at")],
        (api.post, updates, {"affected_resources": [], "published_at": value}, "published_at"),
        (api.patch, first, {"published_at": value}, "published_at"),
    ]
    for send, where, body, name in sent:
        messages, fields = errors(await send(where, body))
        assert fields == [name], (value[:40], messages)
        assert messages[0].startswith(f"{name} must "), messages
    assert [r["id"] for r in (await api.get(url)).json()["data"]] == [report["id"]]
    assert (await api.get(one)).json() == before


async def test_patch_report(api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    rid2 = await new_resource(api, page, "Web")
    report = (await create(api, page, title="a", affected_resources=[hit(rid, "downtime")]))["data"]
    url = f"{PAGES}/{page}/status-reports/{report['id']}"
    response = await api.patch(
        url,
        {
            "title": "b",
            "starts_at": "2025-12-31T00:00:00Z",
            "ends_at": "2026-02-01T00:00:00Z",
            "affected_resources": [hit(rid2, "degraded")],
        },
    )
    assert response.status_code == 200, response.text
    attrs = response.json()["data"]["attributes"]
    assert attrs["title"] == "b"
    assert attrs["starts_at"] == "2025-12-31T00:00:00.000Z"
    assert attrs["ends_at"] == "2026-02-01T00:00:00.000Z"
    assert attrs["affected_resources"] == [hit(rid2, "degraded")]
    # the newest update carries them
    assert response.json()["included"][0]["attributes"]["affected_resources"] == [
        hit(rid2, "degraded")
    ]
    cleared = data(await api.patch(url, {"ends_at": None}))["attributes"]
    assert cleared["ends_at"] is None and cleared["title"] == "b"
    for body in (
        {"report_type": "maintenance"},
        {"title": None},
        {"affected_resources": None},
        {"affected_resources": [hit(rid, "maintenance")]},
        {"ends_at": "2025-01-01T00:00:00Z"},
    ):
        errors(await api.patch(url, body))
    assert data(await api.get(url))["attributes"]["title"] == "b"


async def test_maintenance_ends_at_cannot_be_cleared(api: Api) -> None:
    page = await new_page(api)
    report = (await create(api, page, report_type="maintenance", ends_at="2026-01-01T02:00:00Z"))[
        "data"
    ]
    url = f"{PAGES}/{page}/status-reports/{report['id']}"
    errors(await api.patch(url, {"ends_at": None}))


async def test_updates_routes(api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    report = (await create(api, page, title="a", affected_resources=[hit(rid, "downtime")]))["data"]
    url = f"{PAGES}/{page}/status-reports/{report['id']}/status-updates"
    errors(await api.post(url, {"message": "no resources"}))  # affected_resources is required
    errors(await api.post(url, {"affected_resources": [hit(rid, "maintenance")]}))
    errors(await api.post(url, {"affected_resources": [], "color": "red"}))
    created = await api.post(
        url,
        {
            "message": "Fix deployed",
            "affected_resources": [hit(rid, "degraded")],
            "notify_subscribers": True,
            "published_at": "2026-01-01T00:05:00Z",
        },
    )
    update = data(created, 201)
    assert update["attributes"] == {
        "message": "Fix deployed",
        "published_at": "2026-01-01T00:05:00.000Z",
        "published_at_timezone": "UTC",
        "notify_subscribers": True,
        "status_report_id": int(report["id"]),
        "affected_resources": [hit(rid, "degraded")],
    }
    one = f"{url}/{update['id']}"
    changed = data(await api.patch(one, {"message": "Fix rolled out", "notify_subscribers": False}))
    assert changed["attributes"]["message"] == "Fix rolled out"
    assert changed["attributes"]["notify_subscribers"] is False
    assert changed["attributes"]["affected_resources"] == [hit(rid, "degraded")]
    for body in ({"message": None}, {"published_at": "later"}, {"status": "resolved"}):
        errors(await api.patch(one, body))
    report_url = f"{PAGES}/{page}/status-reports/{report['id']}"
    full = (await api.get(report_url)).json()
    assert full["data"]["attributes"]["aggregate_state"] == "degraded"
    assert [u["id"] for u in full["included"]][-1] == update["id"]
    listed = (await api.get(f"{url}?per_page=1")).json()
    assert len(listed["data"]) == 1 and listed["pagination"]["next"] is not None
    assert (await api.delete(one)).status_code == 204
    assert (await api.get(one)).status_code == 404
    # back to the first update's state
    assert data(await api.get(report_url))["attributes"]["aggregate_state"] == "downtime"
    assert (await api.delete(report_url)).status_code == 204
    assert (await api.get(report_url)).status_code == 404
    assert (await api.get(url)).status_code == 404


async def test_not_found(api: Api) -> None:
    page = await new_page(api)
    base = f"{PAGES}/{page}/status-reports"
    for path in (
        f"{base}/987654",
        f"{base}/abc",
        f"{base}/987654/status-updates",
        f"{PAGES}/987654/status-reports",
    ):
        response = await api.get(path)
        assert response.status_code == 404, path
        assert "errors" in response.json()
    report = (await create(api, page))["data"]
    assert (await api.get(f"{base}/{report['id']}/status-updates/987654")).status_code == 404
    # a report is only found under its own page
    other = await new_page(api, "second")
    assert (await api.get(f"{PAGES}/{other}/status-reports/{report['id']}")).status_code == 404


async def test_isolation(api: Api, other_api: Api) -> None:
    page = await new_page(api)
    report = (await create(api, page, title="mine"))["data"]
    url = f"{PAGES}/{page}/status-reports/{report['id']}"
    update_id = (await api.get(url)).json()["included"][0]["id"]
    for response in (
        await other_api.get(url),
        await other_api.patch(url, {"title": "theirs"}),
        await other_api.delete(url),
        await other_api.get(f"{url}/status-updates"),
        await other_api.post(f"{url}/status-updates", {"affected_resources": []}),
        await other_api.patch(f"{url}/status-updates/{update_id}", {"message": "x"}),
        await other_api.delete(f"{url}/status-updates/{update_id}"),
    ):
        assert response.status_code == 404
    assert data(await api.get(url))["attributes"]["title"] == "mine"
    assert len((await api.get(f"{url}/status-updates")).json()["data"]) == 1


async def test_open_report_sets_resource_status_and_page_state(api: Api, app: FastAPI) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    other = await new_resource(api, page, "Web")
    assert await resource_status(api, page, rid) == "operational"
    report = (await create(api, page, affected_resources=[hit(rid, "downtime")]))["data"]
    assert await resource_status(api, page, rid) == "downtime"
    assert await resource_status(api, page, other) == "operational"
    assert await page_state(api, page) == "downtime"
    listed = (await api.get(f"{PAGES}/{page}/resources")).json()["data"]
    assert {i["id"]: i["attributes"]["status"] for i in listed} == {
        rid: "downtime",
        other: "operational",
    }
    updates = f"{PAGES}/{page}/status-reports/{report['id']}/status-updates"
    data(await api.post(updates, {"affected_resources": [hit(rid, "degraded")]}), 201)
    assert await resource_status(api, page, rid) == "degraded"
    assert await page_state(api, page) == "degraded"
    # resolving: every affected resource resolved
    data(await api.post(updates, {"affected_resources": [hit(rid, "resolved")]}), 201)
    assert await resource_status(api, page, rid) == "operational"
    assert await page_state(api, page) == "operational"
    report_url = f"{PAGES}/{page}/status-reports/{report['id']}"
    assert data(await api.get(report_url))["attributes"]["aggregate_state"] == "operational"
    # the worst of two open reports wins
    await create(api, page, affected_resources=[hit(rid, "degraded"), hit(other, "degraded")])
    await create(api, page, affected_resources=[hit(rid, "downtime")])
    assert await resource_status(api, page, rid) == "downtime"
    assert await resource_status(api, page, other) == "degraded"


async def test_maintenance_window_applies_only_within_it(api: Api, app: FastAPI) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    await create(
        api,
        page,
        report_type="maintenance",
        starts_at="2026-01-01T01:00:00Z",
        ends_at="2026-01-01T02:00:00Z",
        affected_resources=[hit(rid, "maintenance")],
    )
    assert await resource_status(api, page, rid) == "operational"  # scheduled
    advance(app, 3600)
    assert await resource_status(api, page, rid) == "maintenance"
    assert await page_state(api, page) == "maintenance"
    advance(app, 3600)
    assert await resource_status(api, page, rid) == "operational"
    assert await page_state(api, page) == "operational"


async def test_manual_report_ending_and_starting_later(api: Api, app: FastAPI) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    await create(
        api,
        page,
        starts_at="2026-01-01T00:30:00Z",
        ends_at="2026-01-01T01:00:00Z",
        affected_resources=[hit(rid, "downtime")],
    )
    assert await resource_status(api, page, rid) == "operational"
    advance(app, 1800)
    assert await resource_status(api, page, rid) == "downtime"
    advance(app, 1800)
    assert await resource_status(api, page, rid) == "operational"


async def test_deleted_resource_leaves_reports(api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    keep = await new_resource(api, page, "Web")
    report = (
        await create(api, page, affected_resources=[hit(rid, "downtime"), hit(keep, "degraded")])
    )["data"]
    assert (await api.delete(f"{PAGES}/{page}/resources/{rid}")).status_code == 204
    body = (await api.get(f"{PAGES}/{page}/status-reports/{report['id']}")).json()
    assert body["data"]["attributes"]["affected_resources"] == [hit(keep, "degraded")]
    assert body["data"]["attributes"]["aggregate_state"] == "degraded"
    assert body["included"][0]["attributes"]["affected_resources"] == [hit(keep, "degraded")]
    assert await page_state(api, page) == "degraded"


async def test_deleting_the_page_deletes_its_reports(api: Api) -> None:
    page = await new_page(api)
    report = (await create(api, page))["data"]
    assert (await api.delete(f"{PAGES}/{page}")).status_code == 204
    assert (await api.get(f"{PAGES}/{page}/status-reports/{report['id']}")).status_code == 404


def test_report_state() -> None:
    from datetime import UTC, datetime, timedelta

    from watchpost.status_pages.models import StatusReport
    from watchpost.status_pages.report_states import report_state

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    hour = timedelta(hours=1)

    def made(kind: str, ends: datetime | None, resolved: bool = False) -> StatusReport:
        return StatusReport(report_type=kind, starts_at=t0, ends_at=ends, resolved=resolved)

    maintenance = made("maintenance", t0 + hour)
    assert report_state(maintenance, t0 - hour) == "scheduled"
    assert report_state(maintenance, t0) == "in_progress"
    assert report_state(maintenance, t0 + hour) == "completed"
    assert report_state(made("manual", None), t0 + hour) == "in_progress"
    assert report_state(made("manual", None, resolved=True), t0 + hour) == "resolved"
    assert report_state(made("manual", t0 + hour), t0 + 2 * hour) == "resolved"


async def test_bounds(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reports, "MAX_REPORTS", 2)
    monkeypatch.setattr(reports, "MAX_UPDATES", 3)
    page = await new_page(api)
    report = (await create(api, page))["data"]
    await create(api, page)
    problems, _ = errors(await api.post(f"{PAGES}/{page}/status-reports", {}))
    assert "at most 2 status reports" in problems[0]
    url = f"{PAGES}/{page}/status-reports/{report['id']}/status-updates"
    for _ in range(2):
        data(await api.post(url, {"affected_resources": []}), 201)
    problems, _ = errors(await api.post(url, {"affected_resources": []}))
    assert "at most 3 status updates" in problems[0]
    assert len((await api.get(url)).json()["data"]) == 3


async def test_newest_update_is_by_published_at(api: Api) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page)
    report = (
        await create(
            api,
            page,
            starts_at="2025-12-31T23:00:00",
            published_at="2025-12-31T23:00:00",
            affected_resources=[hit(rid, "downtime")],
        )
    )["data"]
    assert report["attributes"]["starts_at"] == "2025-12-31T23:00:00.000Z"  # UTC without offset
    url = f"{PAGES}/{page}/status-reports/{report['id']}"
    first = (await api.get(url)).json()["included"][0]["id"]
    # an update published before the first one is not the newest
    body = {"affected_resources": [hit(rid, "resolved")], "published_at": "2025-12-31T22:00:00Z"}
    older = data(await api.post(f"{url}/status-updates", body), 201)
    full = (await api.get(url)).json()
    assert [u["id"] for u in full["included"]] == [older["id"], first]
    assert full["data"]["attributes"]["aggregate_state"] == "downtime"
    assert await resource_status(api, page, rid) == "downtime"
    # published later, it becomes the newest: the report is resolved
    moved = {"published_at": "2026-01-01T00:00:00Z"}
    data(await api.patch(f"{url}/status-updates/{older['id']}", moved))
    assert data(await api.get(url))["attributes"]["aggregate_state"] == "operational"
    assert await resource_status(api, page, rid) == "operational"
