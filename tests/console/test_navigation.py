"""The main navigation (every section one click away, by role) and the list pages of one
kind: /monitors and /heartbeats are the overview's list of that kind alone, with its
filters and pages under their own path, and a bulk action goes back there."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.console import add_person, csrf, sign_in
from watchpost.console.navigation import NAVIGATION


async def _monitor(api: Api, name: str, url: str) -> int:
    body = {"url": url, "pronounceable_name": name}
    return int(data(await api.post("/api/v2/monitors", body), 201)["id"])


def _links(html: str) -> list[tuple[str, str | None]]:
    """The sidebar's links: (path, aria-current)."""
    side = html[html.index('class="nav-side"') :]
    side = side[: side.index("</nav>")]
    return [
        (m.group(1), m.group(3))
        for m in re.finditer(r'<a href="([^"]+)"( aria-current="([a-z]+)")?>', side)
    ]


async def test_every_section_is_in_the_navigation_by_role(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await add_person(app, email="ann@example.com", role="viewer")
    await sign_in(client, "ann@example.com")
    page = await client.get("/incidents")
    links = _links(page.text)
    paths = [path for path, _ in links]
    every = [e.path for g in NAVIGATION for e in g.entries]
    assert paths == [p for p in every if p != "/team"]  # a viewer manages no one
    assert ("/incidents", "page") in links
    assert page.text.count('aria-label="Main"') == 2  # the sidebar and the phone's Menu
    assert "<summary>Menu</summary>" in page.text

    await add_person(app, email="bob@example.com", role="admin")
    await sign_in(client, "bob@example.com")
    assert [p for p, _ in _links((await client.get("/account")).text)] == every


async def test_monitors_and_heartbeats_have_lists_of_their_own(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    shop = await _monitor(api, "Shop", "https://shop.example.com")
    await _monitor(api, "Blog", "https://blog.example.com")
    await api.post("/api/v2/heartbeats", {"name": "Nightly backup", "period": 86400, "grace": 3600})
    await add_person(app, email="ann@example.com", role="admin")
    await sign_in(client, "ann@example.com")

    monitors = await client.get("/monitors")
    assert monitors.status_code == 200
    assert "Shop" in monitors.text and "Nightly backup" not in monitors.text
    assert "<h1>Monitors of acme</h1>" in monitors.text
    assert 'href="/monitors/new"' in monitors.text and 'href="/heartbeats/new"' not in monitors.text
    assert ("/monitors", "page") in _links(monitors.text)
    assert 'action="/monitors"' in monitors.text  # the filters stay on this page
    assert "Open incidents" not in monitors.text and "<legend>Kind</legend>" not in monitors.text
    # Asking for another kind in the URL does not leave the page's own kind.
    assert "Nightly backup" not in (await client.get("/monitors?kind=heartbeat")).text
    searched = (await client.get("/monitors", params={"q": "blog"})).text
    assert "Blog" in searched and "https://shop.example.com" not in searched

    heartbeats = await client.get("/heartbeats")
    assert "Nightly backup" in heartbeats.text and "Shop" not in heartbeats.text
    assert 'href="/heartbeats/new"' in heartbeats.text

    # A monitor's own page is in the Monitors section.
    detail = (await client.get(f"/monitors/{shop}")).text
    assert ("/monitors", "true") in _links(detail)

    # A bulk action from /monitors comes back to /monitors with its filter.
    token = await csrf(client, "/monitors")
    fields = {"csrf": token, "action": "pause", "item": f"monitor:{shop}", "list": "/monitors"}
    asked = await client.post("/bulk", data=fields)
    assert 'name="list" value="/monitors"' in asked.text  # the question keeps where from
    done = await client.post("/bulk", data={**fields, "confirm": "yes"})
    assert done.status_code == 303 and done.headers["location"].startswith("/monitors?")
    # Anywhere else named as the list is not followed.
    away = await client.post(
        "/bulk",
        data={
            "csrf": token,
            "action": "resume",
            "item": f"monitor:{shop}",
            "list": "//evil",
            "confirm": "yes",
        },
    )
    assert away.headers["location"].startswith("/?")


async def test_the_lists_need_a_sign_in(client: httpx.AsyncClient) -> None:
    for path in ("/monitors", "/heartbeats"):
        answer = await client.get(path)
        assert answer.status_code == 303 and answer.headers["location"].startswith("/login")
