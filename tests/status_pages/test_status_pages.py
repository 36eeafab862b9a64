from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import TEST_PASSWORD, Api, data, errors

PAGES = "/api/v2/status-pages"


async def make_page(api: Api, subdomain: str = "acme-status", **extra: Any) -> dict[str, Any]:
    return data(await api.post(PAGES, {"subdomain": subdomain, **extra}), 201)


async def test_create_applies_documented_defaults(api: Api) -> None:
    page = await make_page(api)
    assert page["type"] == "status_page"
    attrs = page["attributes"]
    assert attrs == {
        **attrs,
        "company_name": "acme",
        "subdomain": "acme-status",
        "timezone": "UTC",
        "history": 90,
        "min_incident_length": 0,
        "password_enabled": False,
        "hide_from_search_engines": False,
        "theme": "light",
        "layout": "vertical",
        "design": "v2",
        "navigation_links": [],
        "aggregate_state": "operational",
        "team_name": "acme",
        "custom_domain": None,
        "announcement": None,
        "created_at": "2026-01-01T00:00:00.000Z",
    }
    assert "password" not in attrs


async def test_create_with_every_field_and_read_back(api: Api) -> None:
    body = {
        "company_name": "Acme Inc.",
        "company_url": "https://acme.example",
        "contact_url": "mailto:ops@acme.example",
        "logo_url": "https://acme.example/logo.png",
        "timezone": "Europe/Prague",
        "subdomain": "Acme",
        "custom_domain": "Status.Acme.example",
        "history": 30,
        "min_incident_length": 120,
        "announcement": "All good",
        "hide_from_search_engines": True,
        "theme": "dark",
        "layout": "horizontal",
        "design": "v1",
        "navigation_links": [{"text": "Home", "href": "https://acme.example"}],
    }
    page = data(await api.post(PAGES, body), 201)
    attrs = page["attributes"]
    assert attrs["subdomain"] == "acme"
    assert attrs["custom_domain"] == "status.acme.example"
    for name in ("company_name", "timezone", "history", "theme", "layout", "navigation_links"):
        assert attrs[name] == body[name]
    assert data(await api.get(f"{PAGES}/{page['id']}")) == page


async def test_subdomain_is_required_and_dns_safe(api: Api) -> None:
    _, fields = errors(await api.post(PAGES, {}))
    assert fields == ["subdomain"]
    for bad in ("-x", "x-", "a_b", "a.b", "", "x" * 64, "ä"):
        _, fields = errors(await api.post(PAGES, {"subdomain": bad}))
        assert fields == ["subdomain"], bad


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("history", 6),
        ("history", 366),
        ("history", "30"),
        ("min_incident_length", -1),
        ("theme", "blue"),
        ("layout", "grid"),
        ("timezone", "Mars/Base"),
        ("company_url", "ftp://x"),
        ("navigation_links", [{"text": "x"}]),
        ("unknown", 1),
    ],
)
async def test_invalid_page_fields(api: Api, field: str, value: object) -> None:
    _, fields = errors(await api.post(PAGES, {"subdomain": "ok", field: value}))
    assert fields == [field]


async def test_every_bad_field_reported_at_once(api: Api) -> None:
    _, fields = errors(await api.post(PAGES, {"subdomain": "-", "theme": "x", "history": 1}))
    assert set(fields) == {"subdomain", "theme", "history"}


async def test_subdomain_unique_across_the_installation(api: Api, other_api: Api) -> None:
    await make_page(api, "shared")
    messages, fields = errors(await other_api.post(PAGES, {"subdomain": "Shared"}))
    assert fields == ["subdomain"] and "taken" in messages[0]
    errors(await api.post(PAGES, {"subdomain": "shared"}))
    other = await make_page(other_api, "other")
    _, fields = errors(await other_api.patch(f"{PAGES}/{other['id']}", {"subdomain": "shared"}))
    assert fields == ["subdomain"]
    # re-sending its own subdomain is fine
    data(await other_api.patch(f"{PAGES}/{other['id']}", {"subdomain": "other"}))


async def test_custom_domain_unique(api: Api, other_api: Api) -> None:
    await make_page(api, "a", custom_domain="status.example.com")
    _, fields = errors(
        await other_api.post(PAGES, {"subdomain": "b", "custom_domain": "status.example.com"})
    )
    assert fields == ["custom_domain"]


async def test_password_is_write_only(api: Api) -> None:
    page = await make_page(api, password_enabled=True, password=TEST_PASSWORD)
    assert page["attributes"]["password_enabled"] is True
    assert "password" not in page["attributes"]
    fetched = await api.get(f"{PAGES}/{page['id']}")
    assert TEST_PASSWORD not in fetched.text
    listed = await api.get(PAGES)
    assert TEST_PASSWORD not in listed.text


async def test_password_enabled_needs_a_password(api: Api) -> None:
    _, fields = errors(await api.post(PAGES, {"subdomain": "p", "password_enabled": True}))
    assert fields == ["password"]
    page = await make_page(api, "p")
    _, fields = errors(await api.patch(f"{PAGES}/{page['id']}", {"password_enabled": True}))
    assert fields == ["password"]
    data(
        await api.patch(
            f"{PAGES}/{page['id']}", {"password_enabled": True, "password": TEST_PASSWORD}
        )
    )
    # clearing the password of a protected page is refused; disabling first works
    _, fields = errors(await api.patch(f"{PAGES}/{page['id']}", {"password": None}))
    assert fields == ["password"]
    updated = data(await api.patch(f"{PAGES}/{page['id']}", {"password_enabled": False}))
    assert updated["attributes"]["password_enabled"] is False


async def test_patch_changes_only_sent_fields_and_rejects_null(api: Api, clock: object) -> None:
    page = await make_page(api, company_name="Acme", announcement="hi")
    updated = data(
        await api.patch(f"{PAGES}/{page['id']}", {"theme": "system", "announcement": None})
    )
    assert updated["attributes"]["theme"] == "system"
    assert updated["attributes"]["announcement"] is None
    assert updated["attributes"]["company_name"] == "Acme"
    _, fields = errors(await api.patch(f"{PAGES}/{page['id']}", {"history": None, "theme": None}))
    assert set(fields) == {"history", "theme"}


async def test_pagination(api: Api) -> None:
    for index in range(5):
        await make_page(api, f"page-{index}")
    response = await api.get(PAGES, params={"per_page": 2, "page": 3})
    body = response.json()
    assert response.status_code == 200
    assert [item["attributes"]["subdomain"] for item in body["data"]] == ["page-4"]
    assert body["pagination"]["next"] is None
    assert "page=3" in body["pagination"]["last"]
    assert "page=2" in body["pagination"]["prev"]


async def test_pages_isolated_between_teams(api: Api, other_api: Api) -> None:
    page = await make_page(api)
    path = f"{PAGES}/{page['id']}"
    assert (await other_api.get(path)).status_code == 404
    assert (await other_api.patch(path, {"theme": "dark"})).status_code == 404
    assert (await other_api.delete(path)).status_code == 404
    assert (await other_api.get(PAGES)).json()["data"] == []
    assert data(await api.get(path)) == page


async def test_delete_and_404s(api: Api) -> None:
    page = await make_page(api)
    path = f"{PAGES}/{page['id']}"
    await api.post(f"{path}/resources", {})
    assert (await api.delete(path)).status_code == 204
    for response in (await api.get(path), await api.delete(path), await api.get(f"{PAGES}/abc")):
        assert response.status_code == 404
    assert (await api.patch(f"{PAGES}/999", {})).status_code == 404
