"""Every machine-readable route of a public page: the page's access rules (published,
IP allowlist, password), its own host, ETag / Cache-Control / 304 and HEAD."""

from __future__ import annotations

import httpx
import pytest

from tests.factories.api import TEST_PASSWORD, Api
from tests.public_machine.helpers import PAGES, hit, new_page, new_report, new_resource

ROUTES = (
    "api/v2/summary.json",
    "api/v2/status.json",
    "api/v2/components.json",
    "api/v2/incidents.json",
    "api/v2/incidents/unresolved.json",
    "api/v2/scheduled-maintenances.json",
    "api/v2/scheduled-maintenances/upcoming.json",
    "api/v2/scheduled-maintenances/active.json",
    "feed.rss",
    "feed.atom",
    "badge.svg",
)


async def _page_with_resource(api: Api, **attributes: object) -> tuple[str, str]:
    page = await new_page(api, "acme", **attributes)
    rid = await new_resource(api, page, "Secret service name")
    await new_report(
        api, page, title="Secret outage title", affected_resources=[hit(rid, "downtime")]
    )
    return page, rid


def _routes(rid: str) -> list[str]:
    return [*ROUTES, f"resources/{rid}/badge.svg"]


async def test_every_route_answers_with_validators(api: Api, client: httpx.AsyncClient) -> None:
    _, rid = await _page_with_resource(api)
    for route in _routes(rid):
        path = f"/status/acme/{route}"
        response = await client.get(path)
        assert response.status_code == 200, (path, response.text)
        etag = response.headers["etag"]
        assert etag.startswith('"') and response.headers["cache-control"] == "public, max-age=30"
        again = await client.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["etag"] == etag
        head = await client.head(path)
        assert head.status_code == 200 and head.content == b"" and head.headers["etag"] == etag
        stale = await client.get(path, headers={"If-None-Match": '"other"'})
        assert stale.status_code == 200 and stale.content == response.content


async def test_json_is_readable_from_other_sites(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(api)
    response = await client.get("/status/acme/api/v2/summary.json")
    assert response.headers["access-control-allow-origin"] == "*"


async def test_a_change_changes_the_etag(api: Api, client: httpx.AsyncClient) -> None:
    page, rid = await _page_with_resource(api)
    before = {r: (await client.get(f"/status/acme/{r}")).headers["etag"] for r in _routes(rid)}
    await new_report(api, page, title="Another", affected_resources=[hit(rid, "degraded")])
    await api.patch(f"{PAGES}/{page}", {"company_name": "Acme Corp"})
    await api.patch(f"{PAGES}/{page}/resources/{rid}", {"public_name": "Renamed"})
    for route in _routes(rid):
        response = await client.get(
            f"/status/acme/{route}", headers={"If-None-Match": before[route]}
        )
        assert response.status_code == 200, route


@pytest.mark.parametrize("case", ["unknown", "unpublished"])
async def test_no_page_is_404(api: Api, client: httpx.AsyncClient, case: str) -> None:
    _, rid = await _page_with_resource(api, published=case != "unpublished")
    subdomain = "nobody" if case == "unknown" else "acme"
    for route in _routes(rid):
        response = await client.get(f"/status/{subdomain}/{route}")
        assert response.status_code == 404, route
        assert b"Secret" not in response.content


async def test_ip_allowlist(api: Api, client: httpx.AsyncClient) -> None:
    page, rid = await _page_with_resource(api, ip_allowlist=["10.0.0.0/8"])
    for route in _routes(rid):
        response = await client.get(f"/status/acme/{route}")
        assert response.status_code == 403, route
        assert b"Secret" not in response.content
    await api.patch(f"{PAGES}/{page}", {"ip_allowlist": ["127.0.0.0/8"]})
    for route in _routes(rid):
        assert (await client.get(f"/status/acme/{route}")).status_code == 200, route


async def test_password_protected_page(api: Api, client: httpx.AsyncClient) -> None:
    _, rid = await _page_with_resource(api, password_enabled=True, password=TEST_PASSWORD)
    for route in _routes(rid):
        response = await client.get(f"/status/acme/{route}")
        assert response.status_code == 401, route
        assert b"Secret" not in response.content
        assert "public" not in response.headers.get("cache-control", "")
    login = await client.post("/status/acme/login", data={"password": TEST_PASSWORD})
    assert login.status_code in (302, 303), login.text
    assert client.cookies, "the login sets a cookie"
    for route in _routes(rid):
        response = await client.get(f"/status/acme/{route}")
        assert response.status_code == 200, route
        assert response.headers["cache-control"] == "private, no-cache"
        assert response.headers["vary"] == "Cookie"
        assert "access-control-allow-origin" not in response.headers
        if route.startswith("api/v2/incidents"):
            assert b"Secret outage title" in response.content, route


async def test_the_page_own_host(api: Api, client: httpx.AsyncClient) -> None:
    _, rid = await _page_with_resource(api, custom_domain="status.acme.test")
    host = {"Host": "status.acme.test"}
    for route in _routes(rid):
        response = await client.get(f"/{route}", headers=host)
        assert response.status_code == 200, (route, response.text)
    summary = (await client.get("/api/v2/summary.json", headers=host)).json()
    assert summary["page"]["url"] == "http://status.acme.test"
    assert summary["incidents"][0]["shortlink"].startswith("http://status.acme.test/reports/")
    feed = await client.get("/feed.atom", headers=host)
    assert b"http://status.acme.test/feed.atom" in feed.content
