"""The monitor form's Locations section: a checkbox for each location the team may name (the
shared ones and its own, never another team's), the confirmation rule and its count, the
API's errors beside them, and what is saved is what the API then shows."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.console.form_pages import error_beside, form_of, post_form
from tests.console.test_details_pages import signed
from tests.console.test_locations_pages import add_location
from tests.factories.api import Api, data
from tests.factories.monitors import MONITORS


async def test_the_form_offers_the_teams_locations_and_saves_the_rule(
    app: FastAPI, client: httpx.AsyncClient, api: Api, other_api: Api
) -> None:
    await add_location(app, "eu-west")
    await add_location(app, "office", private=True, team_id=api.team_id, region="us")
    await add_location(app, "their-lab", private=True, team_id=other_api.team_id)
    await signed(app, client, "admin")
    page = (await client.get("/monitors/new")).text
    assert "<legend>Locations</legend>" in page
    for words in ("eu-west (eu, shared)", "office (us, your team&#39;s)", "local ("):
        assert words in page
    assert "their-lab" not in page
    assert 'value="majority" selected' in page and "Most locations fail" in page

    url = "https://example.com/"
    missing = await post_form(
        client,
        "/monitors/new",
        "/monitors/new",
        url=url,
        locations=["office", "eu-west"],
        confirmation_rule="at_least",
    )
    assert missing.status_code == 422
    assert "is required when confirmation_rule is at_least" in error_beside(
        missing.text, "confirmation_locations"
    )
    kept = {value for name, value in form_of(missing.text, "/monitors/new") if name == "locations"}
    assert kept == {"office", "eu-west"}  # what was ticked stays ticked

    unknown = await post_form(
        client, "/monitors/new", "/monitors/new", url=url, locations=["their-lab"]
    )
    assert unknown.status_code == 422
    assert "no location named 'their-lab'" in error_beside(unknown.text, "locations")

    created = await post_form(
        client,
        "/monitors/new",
        "/monitors/new",
        url=url,
        locations=["office", "eu-west"],
        confirmation_rule="at_least",
        confirmation_locations="2",
    )
    assert created.status_code == 303, created.text[:2000]
    monitor_id = created.headers["location"].rsplit("/", 1)[1]
    attributes = data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]
    assert sorted(attributes["locations"]) == ["eu-west", "office"]
    assert attributes["confirmation_rule"] == "at_least"
    assert attributes["confirmation_locations"] == 2

    edit = f"/monitors/{monitor_id}/edit"
    shown = form_of((await client.get(edit)).text, edit)
    assert {value for name, value in shown if name == "locations"} == {"office", "eu-west"}
    changed = await post_form(
        client,
        edit,
        edit,
        locations=["office"],
        confirmation_rule="any",
        confirmation_locations="",
    )
    assert changed.status_code == 303, changed.text[:2000]
    attributes = data(await api.get(f"{MONITORS}/{monitor_id}"))["attributes"]
    assert attributes["locations"] == ["office"] and attributes["confirmation_rule"] == "any"
    assert attributes["confirmation_locations"] is None
