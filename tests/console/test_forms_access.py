"""Who may use the forms: admins and owners; a responder or viewer is refused (the page and a
direct POST alike, nothing created); a forged POST is refused; another team's object is 404."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.console.form_pages import post_form
from tests.factories.api import Api, data
from tests.factories.console import add_person, csrf, sign_in
from tests.factories.monitors import MINIMAL, MONITORS

EMAIL = "ann@example.com"
NEW_PAGES = ["/monitors/new", "/heartbeats/new", "/targets/new", "/groups/new?kind=monitor"]
BODIES = {
    "/monitors/new": {"monitor_type": "status", "url": "https://example.com"},
    "/heartbeats/new": {"name": "Backup"},
    "/groups/new?kind=monitor": {"name": "Shop"},
}
LISTS = {
    "/monitors/new": MONITORS,
    "/heartbeats/new": "/api/v2/heartbeats",
    "/groups/new?kind=monitor": "/api/v2/monitor-groups",
}


@pytest.mark.parametrize("role", ["owner", "admin"])
async def test_admins_and_owners_see_every_form(
    app: FastAPI, client: httpx.AsyncClient, role: str
) -> None:
    await add_person(app, email=EMAIL, role=role)
    await sign_in(client, EMAIL)
    for page in NEW_PAGES:
        shown = await client.get(page)
        assert shown.status_code == 200, page
        assert shown.text.count("<h1>") == 1


@pytest.mark.parametrize("role", ["responder", "viewer"])
async def test_responders_and_viewers_are_refused_even_by_a_direct_post(
    app: FastAPI, client: httpx.AsyncClient, api: Api, role: str
) -> None:
    await add_person(app, email=EMAIL, role=role)
    await sign_in(client, EMAIL)
    token = await csrf(client)
    for page in NEW_PAGES:
        assert (await client.get(page)).status_code == 403, page
    for page, body in BODIES.items():
        answer = await client.post(page, data={"csrf": token, **body})
        assert answer.status_code == 403, page
        assert (await api.get(LISTS[page])).json()["data"] == [], page
    monitor = data(await api.post(MONITORS, MINIMAL["status"]), 201)["id"]
    edit = f"/monitors/{monitor}/edit"
    assert (await client.get(edit)).status_code == 403
    refused = await client.post(
        edit, data={"csrf": token, "monitor_type": "status", "url": "https://other.example.com"}
    )
    assert refused.status_code == 403
    assert (
        data(await api.get(f"{MONITORS}/{monitor}"))["attributes"]["url"] == "https://example.com"
    )


async def test_a_forged_post_is_refused(app: FastAPI, client: httpx.AsyncClient, api: Api) -> None:
    await add_person(app, email=EMAIL, role="admin")
    await sign_in(client, EMAIL)
    token = await csrf(client)
    body = {"monitor_type": "status", "url": "https://example.com"}
    assert (await client.post("/monitors/new", data=body)).status_code == 403
    cross = await client.post(
        "/monitors/new",
        data={"csrf": token, **body},
        headers={"origin": "https://evil.example", "sec-fetch-site": "cross-site"},
    )
    assert cross.status_code == 403
    assert (await api.get(MONITORS)).json()["data"] == []


async def test_another_teams_objects_are_not_found(
    app: FastAPI, client: httpx.AsyncClient, other_api: Api
) -> None:
    await add_person(app, email=EMAIL, role="admin")
    await sign_in(client, EMAIL)
    token = await csrf(client)
    monitor = data(await other_api.post(MONITORS, MINIMAL["status"]), 201)["id"]
    heartbeat = data(await other_api.post("/api/v2/heartbeats", {"name": "B"}), 201)["id"]
    group = data(await other_api.post("/api/v2/monitor-groups", {"name": "G"}), 201)["id"]
    collector = data(await other_api.post("/api/v1/collectors", {"name": "C"}), 201)["id"]
    target = data(
        await other_api.post(
            f"/api/v1/collectors/{collector}/targets",
            {"kind": "redis", "host": "cache.example.com", "port": 6379},
        ),
        201,
    )["id"]
    pages = [
        f"/monitors/{monitor}/edit",
        f"/heartbeats/{heartbeat}/edit",
        f"/groups/monitor/{group}/edit",
        f"/targets/{target}/edit",
        "/monitors/nonsense/edit",
        "/groups/source/1/edit",
    ]
    for page in pages:
        assert (await client.get(page)).status_code == 404, page
        assert (await client.post(page, data={"csrf": token, "name": "x"})).status_code == 404
    # Nor can a target be created on another team's collector.
    stolen = await client.post(
        "/targets/new",
        data={"csrf": token, "collector_id": collector, "kind": "redis", "host": "h.example.com"},
    )
    assert stolen.status_code == 404
    assert len((await other_api.get(f"/api/v1/collectors/{collector}/targets")).json()["data"]) == 1


async def test_signed_out_is_sent_to_sign_in(client: httpx.AsyncClient) -> None:
    answer = await client.get("/monitors/new?type=tcp")
    assert answer.status_code == 303 and answer.headers["location"].startswith("/login")


async def test_no_collector_yet_says_so(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email=EMAIL, role="admin")
    await sign_in(client, EMAIL)
    page = await client.get("/targets/new")
    assert "This team has no collector yet." in page.text


async def test_edit_form_of_heartbeat_posts_back(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await add_person(app, email=EMAIL, role="owner")
    await sign_in(client, EMAIL)
    created = data(await api.post("/api/v2/heartbeats", {"name": "B"}), 201)["id"]
    page = f"/heartbeats/{created}/edit"
    assert (await post_form(client, page, page)).status_code == 303


async def test_a_forged_post_is_refused_as_such_before_the_role_is_looked_at(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """permitted_form: the CSRF check first (whatever the role), then the role's check."""
    await add_person(app, email=EMAIL, role="viewer")
    await sign_in(client, EMAIL)
    token = await csrf(client)
    expired = "This form has expired"
    forged = await client.post("/heartbeats/new", data={"csrf": "forged", "name": "Backup"})
    assert forged.status_code == 403 and expired in forged.text
    refused = await client.post("/heartbeats/new", data={"csrf": token, "name": "Backup"})
    assert refused.status_code == 403 and expired not in refused.text
