"""`POST /bulk`, the overview's bulk actions: a confirmation that says how many, then every
change in one transaction; roles, another team's ids and the kept filters."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI

from tests.console.test_details_pages import api_state, audit, signed, three_objects
from tests.factories.api import Api, data
from tests.factories.console import add_person, csrf, sign_in


async def test_bulk_pause_asks_then_pauses_all_at_once(
    app: FastAPI, api: Api, other_api: Api, client: httpx.AsyncClient
) -> None:
    mine = [await three_objects(api) for _ in range(2)]
    items = [f"monitor:{o['monitor'][0]}" for o in mine] + [f"heartbeat:{mine[0]['heartbeat'][0]}"]
    token = await signed(app, client, "responder")
    form = {"csrf": token, "action": "pause", "item": items, "q": "shop", "state": "down"}
    asked = await client.post("/bulk", data=form)
    assert asked.status_code == 200
    assert "<h1>Pause 3 monitors and heartbeats?</h1>" in asked.text
    assert [await api_state(api, k, o[k][1]) for o in mine for k in o] == [False] * 6
    # the confirmation page re-posts every field, confirmed
    fields = re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">', asked.text)
    assert ("confirm", "yes") in fields and ("q", "shop") in fields
    assert sorted(v for n, v in fields if n == "item") == sorted(items)
    body: dict[str, list[str]] = {}
    for name, value in fields:
        body.setdefault(name, []).append(value)
    done = await client.post("/bulk", data=body)
    assert done.status_code == 303
    assert done.headers["location"] == "/?q=shop&state=down&done=paused&n=3"
    assert [await api_state(api, "monitor", o["monitor"][1]) for o in mine] == [True, True]
    assert await api_state(api, "heartbeat", mine[0]["heartbeat"][1]) is True
    assert await api_state(api, "heartbeat", mine[1]["heartbeat"][1]) is False
    assert len([row for row in await audit(app) if row[0].endswith(".paused")]) == 3
    overview = await client.get(done.headers["location"])
    assert "Paused 3." in overview.text

    # another team's id among them: 404, nothing changed
    theirs = (await three_objects(other_api))["monitor"]
    mixed = {**form, "item": [f"monitor:{mine[1]['monitor'][0]}", f"monitor:{theirs[0]}"]}
    mixed["action"] = "resume"
    refused = await client.post("/bulk", data={**mixed, "confirm": "yes"})
    assert refused.status_code == 404
    assert await api_state(api, "monitor", mine[1]["monitor"][1]) is True
    assert (await client.post("/bulk", data={**form, "item": ["monitor:x"]})).status_code == 404

    # a responder may not delete; an admin may
    delete = {**form, "action": "delete", "confirm": "yes", "item": items}
    assert (await client.post("/bulk", data=delete)).status_code == 403
    assert await api_state(api, "monitor", mine[0]["monitor"][1]) is True
    token = await signed(app, client, "admin")
    gone = await client.post("/bulk", data={**delete, "csrf": token})
    assert gone.headers["location"].endswith("done=deleted&n=3")
    assert [await api_state(api, "monitor", o["monitor"][1]) for o in mine] == ["gone", "gone"]


async def test_bulk_as_a_viewer_is_refused(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    object_id, path = (await three_objects(api))["monitor"]
    token = await signed(app, client, "viewer")
    form = {"csrf": token, "action": "pause", "item": f"monitor:{object_id}", "confirm": "yes"}
    assert (await client.post("/bulk", data=form)).status_code == 403
    assert await api_state(api, "monitor", path) is False


async def test_every_row_matching_the_filter(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    """`all_matching`: every row the overview's filter matches, not only the page shown."""
    for n in range(3):
        body = {"url": f"https://shop{n}.example.com", "pronounceable_name": f"Shop {n}"}
        data(await api.post("/api/v2/monitors", body), 201)
    data(await api.post("/api/v2/monitors", {"url": "https://blog.example.com"}), 201)
    await add_person(app, email="ops@example.com", role="responder")
    await sign_in(client, "ops@example.com")
    token = await csrf(client, "/")
    form = {"csrf": token, "action": "pause", "all_matching": "1", "q": "shop", "per_page": "25"}
    asked = await client.post("/bulk", data=form)
    assert asked.status_code == 200 and "Pause 3 monitors?" in asked.text
    done = await client.post("/bulk", data={**form, "confirm": "yes"})
    assert done.status_code == 303
    assert done.headers["location"].startswith("/?q=shop&per_page=25&done=paused&n=3")
    listed = (await api.get("/api/v2/monitors")).json()["data"]
    paused = {m["attributes"]["url"] for m in listed if m["attributes"]["paused"]}
    assert paused == {f"https://shop{n}.example.com" for n in range(3)}
