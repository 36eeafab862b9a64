"""The status page editor's lighter list and its further edits over HTTP: the list as one
form (each button says what it does by its name and value), renaming a section, a
resource's own edit form with its metadata rules; role refusals and another team's page a
404, errors beside the fields."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.console.team_support import person
from tests.console.test_status_pages import _built, _order, _page, mine
from tests.factories.api import Api


async def test_the_list_is_one_form_whose_buttons_move_and_remove(app: FastAPI, api: Api) -> None:
    page, sections, ids = await _built(api)
    pid = page["id"]
    base = f"/status-pages/{pid}"
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        editor = (await client.get(base)).text
        layout = editor[editor.index('action="/status-pages/' + pid + '/layout"') :]
        layout = layout[: layout.index("</form>")]
        # One form for the whole list: one CSRF field, no form per row.
        assert layout.count('name="csrf"') == 1 and "<form" not in layout
        assert f'name="down" value="{ids[0]}"' in layout
        assert f'name="section_down" value="{sections[0]}"' in layout
        moved = await client.post(f"{base}/layout", data={"csrf": csrf, "down": ids[0]})
        assert moved.status_code == 303 and moved.headers["location"].endswith(
            f"done=moved#resource-{ids[0]}"
        )
        assert [r for _, _, r in await _order(app, pid)] == [int(ids[1]), int(ids[0]), int(ids[2])]
        await client.post(f"{base}/layout", data={"csrf": csrf, "up": ids[0]})
        assert [r for _, _, r in await _order(app, pid)] == [int(ids[0]), int(ids[1]), int(ids[2])]
        await client.post(f"{base}/layout", data={"csrf": csrf, "section_down": sections[0]})
        assert [r for _, _, r in await _order(app, pid)] == [int(ids[2]), int(ids[0]), int(ids[1])]
        # Remove asks first (the confirmation posts to the resource's own delete).
        asked = await client.post(f"{base}/layout", data={"csrf": csrf, "remove": ids[1]})
        assert asked.status_code == 200
        assert f'action="{base}/resources/{ids[1]}/delete"' in asked.text
        asked = await client.post(
            f"{base}/layout", data={"csrf": csrf, "section_remove": sections[0]}
        )
        assert asked.status_code == 200 and "Remove the section" in asked.text
        assert len(await _order(app, pid)) == 3
        nothing = await client.post(f"{base}/layout", data={"csrf": csrf})
        assert nothing.status_code == 303
        forged = await client.post(f"{base}/layout", data={"csrf": "wrong", "up": ids[1]})
        assert forged.status_code == 403
    assert await mine(app) == ["status_page_resource.moved"] * 2 + ["status_page_section.moved"]


async def test_the_list_form_refuses_roles(app: FastAPI, api: Api) -> None:
    page, sections, ids = await _built(api)
    before = await _order(app, page["id"])
    for role in ("viewer", "responder"):
        async with person(app, f"{role}@example.com", role) as (client, csrf):
            editor = (await client.get(f"/status-pages/{page['id']}")).text
            assert "/layout" not in editor and not re.search(r'name="(up|down|remove)"', editor)
            for body in ({"down": ids[0]}, {"remove": ids[0]}, {"section_down": sections[0]}):
                answer = await client.post(
                    f"/status-pages/{page['id']}/layout", data={"csrf": csrf, **body}
                )
                assert answer.status_code == 403
    assert await _order(app, page["id"]) == before


async def test_the_list_form_of_another_team_is_a_404(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    theirs, their_sections, their_ids = await _built(other_api)
    own = await _page(api, "own-status")
    async with person(app, "ann@example.com", "owner") as (client, csrf):
        base = f"/status-pages/{theirs['id']}"
        for body in (
            {"down": their_ids[0]},
            {"remove": their_ids[0]},
            {"section_down": their_sections[0]},
            {"section_remove": their_sections[0]},
            {},
        ):
            answer = await client.post(f"{base}/layout", data={"csrf": csrf, **body})
            assert answer.status_code == 404, body
        # Their resource or section through my own page: not found either.
        for body in ({"up": their_ids[1]}, {"section_up": their_sections[1]}):
            answer = await client.post(
                f"/status-pages/{own['id']}/layout", data={"csrf": csrf, **body}
            )
            assert answer.status_code == 404, body
    assert len(await _order(app, theirs["id"])) == 3
    assert await mine(app, "globex") == []


async def test_a_long_custom_domain_wraps_between_its_labels(app: FastAPI, api: Api) -> None:
    domain = "status-of-the-subsidiary.customer-facing-department.example"
    await _page(api, "long-domain", custom_domain=domain)
    async with person(app, "ann@example.com", "viewer") as (client, _):
        listed = (await client.get("/status-pages")).text
    assert (
        "https://<wbr>status-of-the-subsidiary.<wbr>customer-facing-department.<wbr>example"
        in listed
    )
