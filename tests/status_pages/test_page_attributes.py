"""The status page attributes of the hosted API: checked, stored, returned as sent; the
password hashed; status page groups referenced and cleared."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import TEST_PASSWORD, Api, data, errors
from watchpost.context import AppContext
from watchpost.crypto import check_password
from watchpost.status_pages.models import StatusPage

PAGES = "/api/v2/status-pages"
GROUPS = "/api/v2/status-page-groups"


async def make_page(api: Api, subdomain: str = "attrs", **extra: Any) -> dict[str, Any]:
    return data(await api.post(PAGES, {"subdomain": subdomain, **extra}), 201)


async def stored(app: FastAPI, page_id: str) -> StatusPage:
    ctx: AppContext = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        page = await session.scalar(select(StatusPage).where(StatusPage.id == int(page_id)))
        assert page is not None
        session.expunge(page)
        return page


async def test_defaults_of_the_new_attributes(api: Api) -> None:
    attrs = (await make_page(api))["attributes"]
    assert attrs == {
        **attrs,
        "whitelabeled": False,
        "subscribable": False,
        "published": True,
        "require_sso": False,
        "automatic_reports": False,
        "announcement_embed_visible": False,
        "ip_allowlist": [],
        "status_page_group_id": None,
        "logo_url": None,
        "logo_remote_url": None,
        "dark_logo_url": None,
        "dark_logo_remote_url": None,
        "custom_css": None,
        "custom_javascript": None,
        "google_analytics_id": None,
    }


async def test_logo_under_either_name(api: Api) -> None:
    page = await make_page(api, logo_remote_url="https://example.com/a.png")
    attrs = page["attributes"]
    assert attrs["logo_url"] == attrs["logo_remote_url"] == "https://example.com/a.png"
    path = f"{PAGES}/{page['id']}"
    attrs = data(await api.patch(path, {"dark_logo_url": "https://example.com/d.png"}))[
        "attributes"
    ]
    assert attrs["dark_logo_remote_url"] == "https://example.com/d.png"
    _, fields = errors(
        await api.patch(
            path, {"logo_url": "https://example.com/x.png", "logo_remote_url": "https://e.com/y"}
        )
    )
    assert fields == ["logo_remote_url"]
    both = {"logo_url": "https://example.com/x.png", "logo_remote_url": "https://example.com/x.png"}
    assert data(await api.patch(path, both))["attributes"]["logo_url"] == both["logo_url"]
    cleared = data(await api.patch(path, {"logo_remote_url": ""}))["attributes"]
    assert cleared["logo_url"] is None and cleared["logo_remote_url"] is None


async def test_ip_allowlist_is_checked_and_kept_as_sent(api: Api) -> None:
    entries = ["# Office", "192.168.1.0/24", "2001:0db8:85a3::/64", "10.0.0.1", " 10.0.0.2"]
    page = await make_page(api, ip_allowlist=entries)
    assert page["attributes"]["ip_allowlist"] == entries
    for bad in (["not-an-ip"], ["10.0.0.0/33"], [""], ["a" * 256], ["10.0.0.1"] * 1001, None):
        response = await api.patch(f"{PAGES}/{page['id']}", {"ip_allowlist": bad})
        _, fields = errors(response)
        assert fields == ["ip_allowlist"], bad
    emptied = data(await api.patch(f"{PAGES}/{page['id']}", {"ip_allowlist": []}))
    assert emptied["attributes"]["ip_allowlist"] == []


async def test_navigation_links_take_paths_of_the_page(api: Api) -> None:
    links = [{"text": "Incidents", "href": "/incidents"}, {"text": "Mail", "href": "mailto:a@b.c"}]
    page = await make_page(api, navigation_links=links)
    assert page["attributes"]["navigation_links"] == links
    for href in ("incidents", "//evil.example", "/with space", "javascript:alert(1)"):
        response = await api.patch(
            f"{PAGES}/{page['id']}", {"navigation_links": [{"text": "x", "href": href}]}
        )
        _, fields = errors(response)
        assert fields == ["navigation_links"], href


async def test_password_is_hashed_never_returned_and_empty_disables(app: FastAPI, api: Api) -> None:
    page = await make_page(api, password_enabled=True, password=TEST_PASSWORD)
    assert TEST_PASSWORD not in str(page)
    row = await stored(app, page["id"])
    assert row.password_hash is not None and TEST_PASSWORD not in row.password_hash
    assert check_password(TEST_PASSWORD, row.password_hash)
    assert not check_password("wrong", row.password_hash)
    path = f"{PAGES}/{page['id']}"
    _, fields = errors(await api.patch(path, {"require_sso": True}))
    assert fields == ["require_sso"]
    attrs = data(await api.patch(path, {"password": ""}))["attributes"]
    assert attrs["password_enabled"] is False
    assert (await stored(app, page["id"])).password_hash is None


async def test_custom_domain_empty_means_none(api: Api) -> None:
    page = await make_page(api, custom_domain="")
    assert page["attributes"]["custom_domain"] is None
    path = f"{PAGES}/{page['id']}"
    domain = data(await api.patch(path, {"custom_domain": "status.example.com"}))
    assert domain["attributes"]["custom_domain"] == "status.example.com"
    assert data(await api.patch(path, {"custom_domain": ""}))["attributes"]["custom_domain"] is None
    # the freed domain can be taken again
    await make_page(api, "other", custom_domain="status.example.com")


async def test_status_page_group_must_be_the_teams_and_deleting_it_clears_pages(
    api: Api, other_api: Api
) -> None:
    group = data(await api.post(GROUPS, {"name": "Public"}), 201)
    foreign = data(await other_api.post(GROUPS, {"name": "Theirs"}), 201)
    assert group["type"] == "status_page_group"
    assert group["attributes"]["sort_index"] is None
    _, fields = errors(await api.post(PAGES, {"subdomain": "g", "status_page_group_id": 999}))
    assert fields == ["status_page_group_id"]
    response = await api.post(PAGES, {"subdomain": "g", "status_page_group_id": int(foreign["id"])})
    assert errors(response)[1] == ["status_page_group_id"]
    page = await make_page(api, "g", status_page_group_id=int(group["id"]))
    assert page["attributes"]["status_page_group_id"] == int(group["id"])
    listed = (await api.get(GROUPS)).json()["data"]
    assert [g["id"] for g in listed] == [group["id"]]
    assert (await other_api.get(f"{GROUPS}/{group['id']}")).status_code == 404
    assert (await api.delete(f"{GROUPS}/{group['id']}")).status_code == 204
    fetched = data(await api.get(f"{PAGES}/{page['id']}"))
    assert fetched["attributes"]["status_page_group_id"] is None
    _, fields = errors(await api.post(GROUPS, {"name": "x", "team_name": "globex"}))
    assert fields == ["team_name"]


async def test_unknown_names_and_nulls_stay_422(api: Api) -> None:
    _, fields = errors(await api.post(PAGES, {"subdomain": "u", "logo": "x"}))
    assert fields == ["logo"]
    page = await make_page(api, "u")
    for name in ("published", "whitelabeled", "ip_allowlist", "automatic_reports"):
        _, fields = errors(await api.patch(f"{PAGES}/{page['id']}", {name: None}))
        assert fields == [name]
    everything = {
        "whitelabeled": True,
        "subscribable": True,
        "published": False,
        "automatic_reports": True,
        "custom_css": ".a{}",
        "custom_javascript": "1",
        "google_analytics_id": "G-1",
        "announcement_embed_visible": True,
        "announcement_embed_link": "https://example.com",
        "announcement_embed_css": ".b{}",
        "timezone": "Eastern Time (US & Canada)",
    }
    attrs = data(await api.patch(f"{PAGES}/{page['id']}", everything))["attributes"]
    assert attrs == {**attrs, **everything}


async def test_a_group_deleted_while_pages_join_it_leaves_none_naming_it(api: Api) -> None:
    """PATCHes naming a group race its DELETE: each lands before it (then cleared) or is a
    422 after it; no page is left naming the deleted group, and nothing is a 500."""
    made = [await make_page(api, f"race-{n}") for n in range(6)]
    for _ in range(3):
        group = data(await api.post(GROUPS, {"name": "Racing"}), 201)
        joins = [
            api.patch(f"{PAGES}/{page['id']}", {"status_page_group_id": int(group["id"])})
            for page in made
        ]
        answers = await asyncio.gather(api.delete(f"{GROUPS}/{group['id']}"), *joins)
        assert answers[0].status_code == 204
        assert {answer.status_code for answer in answers[1:]} <= {200, 422}
        for page in made:
            fetched = data(await api.get(f"{PAGES}/{page['id']}"))
            assert fetched["attributes"]["status_page_group_id"] is None
