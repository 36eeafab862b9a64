"""The hosted API's Python client (betterstack-uptime) against a served app: its StatusPage,
StatusPageSection, StatusPageResource and StatusPageGroup classes create, fetch, save (only
the attributes changed since the last fetch) and delete, and every attribute they hold
after a save is what was set."""

from __future__ import annotations

import asyncio

from betterstack.uptime import (
    StatusPage,
    StatusPageGroup,
    StatusPageResource,
    StatusPageSection,
    UptimeAPI,
)

from tests.factories.api import TEST_PASSWORD
from tests.factories.processes import uvicorn_thread
from watchpost.app import create_app
from watchpost.context import AppContext
from watchpost.settings import Settings
from watchpost.teams.service import create_token


async def _mint_token(settings: Settings) -> str:
    ctx = AppContext.build(settings)
    try:
        async with ctx.db.write_sessions() as session, session.begin():
            return await create_token(session, team_name="acme", now=ctx.clock.now())
    finally:
        await ctx.db.dispose()


def test_the_python_client_round_trips_status_pages(settings: Settings) -> None:
    token = asyncio.run(_mint_token(settings))
    with uvicorn_thread(create_app(settings)) as base:
        api = UptimeAPI(token, retries=0)
        api.base_url = f"{base}/api/v2/"

        group = StatusPageGroup.new(api, name="Public pages", sort_index=1)
        assert (group.name, group.sort_index) == ("Public pages", 1)
        page = StatusPage.new(
            api,
            subdomain="py-client",
            company_name="Example, Inc",
            company_url="https://example.com",
            logo_url="https://example.com/logo.png",
            timezone="Europe/Prague",
            status_page_group_id=int(group.id),
            ip_allowlist=["10.0.0.0/8", "# office"],
            navigation_links=[{"text": "Incidents", "href": "/incidents"}],
            custom_css="body { color: red; }",
            announcement_embed_visible=True,
            password_enabled=True,
            password=TEST_PASSWORD,
        )
        assert page.logo_url == "https://example.com/logo.png"
        assert page.status_page_group_id == int(group.id)
        assert page.ip_allowlist == ["10.0.0.0/8", "# office"]
        assert page.password_enabled is True and "password" not in page._extras

        # save() sends what changed since the fetch, and takes the response back
        page.subscribable = True
        page.custom_domain = "status.example.com"
        page.theme = "dark"
        page.save()
        fetched = StatusPage(id=page.id, _api=api)
        fetched.fetch_data()
        for name in ("subscribable", "custom_domain", "theme", "logo_url", "timezone"):
            assert getattr(fetched, name) == getattr(page, name), name

        # Sections and resources have no collection URL of their own in the client: it
        # posts to the page's and builds the objects from the response.
        made = api.post(f"status-pages/{page.id}/sections", body={"name": "Services"})
        section = StatusPageSection._from_api_response(api, made.json()["data"])
        section._status_page_id = page.id
        section.name, section.position = "Our services", 4
        section.save()
        assert (section.name, section.position) == ("Our services", 0)  # appended: flowing
        body = {
            "resource_type": "ManuallyTrackedItem",
            "public_name": "Office Wi-Fi",
            "status_page_section_id": int(section.id),
            "fixed_position": True,
            "position": 3,
        }
        made = api.post(f"status-pages/{page.id}/resources", body=body)
        item = StatusPageResource._from_api_response(api, made.json()["data"])
        item._status_page_id = page.id
        assert (item.public_name, item.position, item.fixed_position) == ("Office Wi-Fi", 3, True)
        item.explanation = "Second floor"
        item.save()
        assert item.explanation == "Second floor" and item.position == 3
        assert [s.name for s in page.fetch_sections()] == ["Our services"]
        assert [r.public_name for r in page.fetch_resources()] == ["Office Wi-Fi"]

        # deleting the group takes the page out of it
        group.delete()
        fetched.fetch_data()
        assert fetched.status_page_group_id is None
        page.delete()
        assert list(StatusPage.get_all_instances(api)) == []
