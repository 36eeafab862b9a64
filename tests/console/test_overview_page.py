"""The overview page (`/` signed in): counts by state, open incidents, the list with its
filters in the URL, pages, and only the team's own rows."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.console import add_person, sign_in
from tests.factories.incidents import create_engine_incident


async def _monitor(api: Api, name: str, url: str, **extra: object) -> int:
    body = {"url": url, "pronounceable_name": name, **extra}
    return int(data(await api.post("/api/v2/monitors", body), 201)["id"])


async def test_the_overview_lists_the_teams_checks(
    app: FastAPI, client: httpx.AsyncClient, api: Api, other_api: Api
) -> None:
    shop = await _monitor(api, "Shop", "https://shop.example.com")
    await _monitor(api, "Blog", "https://blog.example.com", paused=True)
    await api.post("/api/v2/heartbeats", {"name": "Nightly backup", "period": 86400, "grace": 3600})
    await _monitor(other_api, "Secret thing", "https://globex.example.com")
    await create_engine_incident(app, api, monitor_id=shop, name="Shop is down")
    await add_person(app, email="ann@example.com", role="viewer")
    await sign_in(client, "ann@example.com")

    page = await client.get("/")
    assert page.status_code == 200
    text = page.text
    for name in ("Shop", "Blog", "Nightly backup", "https://shop.example.com"):
        assert name in text
    assert "Secret thing" not in text
    assert "Open incidents" in text and "Shop is down" in text
    assert 'class="state state-paused">Paused<' in text
    assert 'role="img"' in text and "Response time of Shop, last 24 hours" in text
    assert 'name="action" value="pause"' not in text  # a viewer has no bulk actions

    searched = (await client.get("/", params={"q": "BLOG.example"})).text
    assert "Blog" in searched and "Nightly backup" not in searched
    paused = (await client.get("/", params=[("state", "paused")])).text
    assert "Blog" in paused and "https://shop.example.com" not in paused
    heartbeats = (await client.get("/", params=[("kind", "heartbeat")])).text
    assert "Nightly backup" in heartbeats and "https://shop.example.com" not in heartbeats
    # Nonsense in the URL falls back to the defaults.
    assert (
        await client.get("/", params={"page": "x", "sort": "?", "per_page": "7"})
    ).status_code == 200


async def test_pages_of_the_chosen_size(app: FastAPI, client: httpx.AsyncClient, api: Api) -> None:
    for n in range(30):
        await _monitor(api, f"Site {n:02}", f"https://site{n}.example.com")
    await add_person(app, email="ann@example.com", role="responder")
    await sign_in(client, "ann@example.com")
    first = await client.get("/", params={"per_page": "25", "sort": "name"})
    assert "Site 00" in first.text and "Site 25" not in first.text
    assert "page 1 of 2" in first.text
    assert 'href="/?sort=name&amp;page=2&amp;per_page=25"' in first.text
    assert 'name="action" value="pause"' in first.text  # a responder pauses and resumes
    assert 'name="action" value="delete"' not in first.text  # but does not delete
    second = await client.get("/", params={"per_page": "25", "sort": "name", "page": "2"})
    assert "Site 29" in second.text and "Site 00" not in second.text
