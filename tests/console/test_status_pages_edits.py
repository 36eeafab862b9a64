"""The status page editor's lighter list and its further edits over HTTP: the list as one
form (each button says what it does by its name and value), renaming a section, a
resource's own edit form with its metadata rules; role refusals and another team's page a
404, errors beside the fields."""

from __future__ import annotations

import html
import re
from typing import Any

from fastapi import FastAPI

from tests.console.team_support import audit_entries, person
from tests.console.test_status_pages import _built, _order, _page, mine
from tests.factories.api import Api, data


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


# ------------------------------------------------------------ a section, a resource edited

RULE = "mark_as_down_metadata_rule"


async def _attributes(api: Api, page_id: str, resource_id: str) -> dict[str, Any]:
    found = data(await api.get(f"/api/v2/status-pages/{page_id}/resources/{resource_id}"))
    return dict(found["attributes"])


def _form(csrf: str, **extra: str) -> dict[str, str]:
    """The resource form as the browser posts it with nothing changed (a monitor's defaults)."""
    return {
        "csrf": csrf,
        "public_name": "",
        "explanation": "",
        "widget_type": "history",
        "mark_as_down_for": "any_incident",
        "mark_as_degraded_for": "no_incident",
        f"{RULE}-count": "0",
        "mark_as_degraded_metadata_rule-count": "0",
        **extra,
    }


async def test_a_section_renamed_on_its_own_page(app: FastAPI, api: Api) -> None:
    page, sections, _ = await _built(api)
    base = f"/status-pages/{page['id']}"
    edit = f"{base}/sections/{sections[0]}/edit"
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        editor = (await client.get(base)).text
        assert f'href="{edit}"' in editor
        form = await client.get(edit)
        assert form.status_code == 200 and 'value="Website"' in form.text
        too_long = await client.post(edit, data={"csrf": csrf, "name": "x" * 256})
        assert too_long.status_code == 422
        assert 'id="name-error"' in too_long.text and "at most 255 characters" in too_long.text
        assert 'value="' + "x" * 256 + '"' in too_long.text  # kept as typed
        saved = await client.post(edit, data={"csrf": csrf, "name": "Web shop"})
        assert saved.status_code == 303
        assert saved.headers["location"] == f"{base}?done=section_saved#section-{sections[0]}"
        shown = (await client.get(saved.headers["location"])).text
        assert "Section renamed." in shown and ">Web shop</h3>" in shown
        # Empty: a section without heading.
        assert (await client.post(edit, data={"csrf": csrf, "name": ""})).status_code == 303
        forged = await client.post(edit, data={"csrf": "wrong", "name": "Forged"})
        assert forged.status_code == 403
    api_url = f"/api/v2/status-pages/{page['id']}/sections"
    names = [s["attributes"]["name"] for s in (await api.get(api_url)).json()["data"]]
    assert names == ["", "Jobs"]
    entries = [e for e in await audit_entries(app) if e.actor_kind == "person"]
    renamed = [e for e in entries if e.action == "status_page_section.updated"]
    assert [e.details for e in renamed] == [{"changed": ["name"]}] * 2
    assert renamed[0].subject == "Acme status: Web shop"


async def test_a_resource_edited_attribute_by_attribute(app: FastAPI, api: Api) -> None:
    page, _, ids = await _built(api)
    pid, rid = page["id"], ids[0]
    edit = f"/status-pages/{pid}/resources/{rid}/edit"
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        editor = (await client.get(f"/status-pages/{pid}")).text
        assert f'href="{edit}"' in editor
        form = await client.get(edit)
        assert form.status_code == 200
        assert "Monitor: https://example.com" in form.text
        assert '<option value="response_times"' in form.text  # a monitor's widgets
        changes: list[tuple[dict[str, str], dict[str, Any]]] = [
            ({"public_name": "Checkout"}, {"public_name": "Checkout"}),
            ({"explanation": "Card payments."}, {"explanation": "Card payments."}),
            ({"widget_type": "plain"}, {"widget_type": "plain", "history": False}),
            ({"fixed_position": "on"}, {"fixed_position": True}),
            ({"mark_as_down_for": "no_incident"}, {"mark_as_down_for": "no_incident"}),
            ({"mark_as_degraded_for": "any_incident"}, {"mark_as_degraded_for": "any_incident"}),
        ]
        sent: dict[str, str] = {}
        for change, expected in changes:
            sent |= change
            saved = await client.post(edit, data=_form(csrf, **sent))
            assert saved.status_code == 303, saved.text[:2000]
            assert saved.headers["location"].endswith(f"done=resource_saved#resource-{rid}")
            attributes = await _attributes(api, pid, rid)
            assert {k: attributes[k] for k in expected} == expected
        shown = (await client.get(edit)).text
        assert 'value="Checkout"' in shown and "Card payments." in shown
        assert re.search(r'id="fixed_position" name="fixed_position" value="on" checked', shown)
        # An empty public name: the item's own again; unticked: no fixed position.
        sent |= {"public_name": ""}
        del sent["fixed_position"]
        assert (await client.post(edit, data=_form(csrf, **sent))).status_code == 303
    attributes = await _attributes(api, pid, rid)
    assert attributes["public_name"] == "https://example.com"
    assert attributes["fixed_position"] is False
    entries = [e for e in await audit_entries(app) if e.action == "status_page_resource.updated"]
    assert [e.details for e in entries] == [
        {"changed": ["public_name"]},
        {"changed": ["explanation"]},
        {"changed": ["widget_type"]},
        {"changed": ["fixed_position"]},
        {"changed": ["mark_as_down_for"]},
        {"changed": ["mark_as_degraded_for"]},
        {"changed": ["public_name", "fixed_position"]},
    ]
    assert entries[0].subject == "Acme status: Checkout"


async def test_rule_rows_added_removed_and_saved(app: FastAPI, api: Api) -> None:
    page, _, ids = await _built(api)
    pid, rid = page["id"], ids[2]  # the heartbeat
    edit = f"/status-pages/{pid}/resources/{rid}/edit"
    matching = {"mark_as_down_for": "incident_matching_metadata", "widget_type": "history"}
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        # Add: the form again with an empty row, every typed value kept, nothing stored.
        added = await client.post(
            edit,
            data=_form(
                csrf,
                **matching,
                public_name="Backups",
                op=f"add-{RULE}",
                **{
                    f"{RULE}-key": "owner",
                },
            ),
        )
        assert added.status_code == 200
        assert f'name="{RULE}-0-value"' in added.text and f'name="{RULE}-1-value"' not in added.text
        assert f'name="{RULE}-count" value="1"' in added.text
        assert 'value="Backups"' in added.text and 'value="owner"' in added.text
        assert (await _attributes(api, pid, rid))["public_name"] == "Nightly backup"
        two = {f"{RULE}-key": "owner", f"{RULE}-count": "2"}
        two |= {f"{RULE}-0-value": "payments", f"{RULE}-1-value": "billing"}
        # Remove the first: the second moves up.
        removed = await client.post(
            edit, data=_form(csrf, **matching, **two, op=f"remove-{RULE}-0")
        )
        assert removed.status_code == 200
        assert f'name="{RULE}-0-value" value="billing"' in removed.text
        assert f'name="{RULE}-1-value"' not in removed.text
        saved = await client.post(edit, data=_form(csrf, **matching, **two))
        assert saved.status_code == 303, saved.text[:2000]
        rule = (await _attributes(api, pid, rid))[RULE]
        assert rule["key"] == "owner"
        assert [(v["type"], v["value"]) for v in rule["values"]] == [
            ("String", "payments"),
            ("String", "billing"),
        ]
        # A typed value (set through the API) is shown read-only and kept as stored.
        body = {
            "mark_as_down_for": "incident_matching_metadata",
            RULE: {
                "key": "owner",
                "values": [{"value": "payments"}, {"type": "User", "email": "ann@example.com"}],
            },
        }
        data(await api.patch(f"/api/v2/status-pages/{pid}/resources/{rid}", body))
        form = (await client.get(edit)).text
        assert "User: ann (ann@example.com)" in form
        kept = re.search(rf'name="{RULE}-1-kept" value="([^"]+)"', form)
        assert kept is not None
        resent = {f"{RULE}-key": "owner", f"{RULE}-count": "3", f"{RULE}-0-value": "payments"}
        resent |= {f"{RULE}-1-kept": html.unescape(kept.group(1)), f"{RULE}-2-value": "ops"}
        assert (await client.post(edit, data=_form(csrf, **matching, **resent))).status_code == 303
        values = (await _attributes(api, pid, rid))[RULE]["values"]
        assert [(v["type"], v["value"] or v["email"]) for v in values] == [
            ("String", "payments"),
            ("User", "ann@example.com"),
            ("String", "ops"),
        ]
        # Another mode: the API clears the rule.
        assert (await client.post(edit, data=_form(csrf, **resent))).status_code == 303
        cleared = await _attributes(api, pid, rid)
        assert cleared["mark_as_down_for"] == "any_incident" and cleared[RULE] is None


async def test_the_apis_errors_beside_their_fields_and_nothing_saved(
    app: FastAPI, api: Api
) -> None:
    page, _, ids = await _built(api)
    pid, rid = page["id"], ids[2]  # the heartbeat
    edit = f"/status-pages/{pid}/resources/{rid}/edit"
    before = await _attributes(api, pid, rid)
    matching = {"mark_as_down_for": "incident_matching_metadata", "public_name": "Backups"}
    cases: list[tuple[dict[str, str], str, str]] = [
        (
            matching,
            f"{RULE}-error",
            f"{RULE} is required when mark_as_down_for is incident_matching_metadata",
        ),
        (
            {**matching, f"{RULE}-key": "owner", f"{RULE}-count": "1", f"{RULE}-0-value": " "},
            f"{RULE}-0-value-error",
            "needs a non-blank value",
        ),
        (
            {**matching, f"{RULE}-count": "1", f"{RULE}-0-value": "payments"},
            f"{RULE}-key-error",
            f"{RULE}.key",
        ),
        (
            {**matching, f"{RULE}-key": "owner"},
            f"{RULE}-error",
            f"{RULE}.values must have at least 1 item",
        ),
        ({"widget_type": "response_times"}, "widget_type-error", "does not fit"),
        ({"public_name": "x" * 256}, "public_name-error", "at most 255 characters"),
        ({"mark_as_degraded_for": "sometimes"}, "mark_as_degraded_for-error", "must be"),
    ]
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        for sent, error_id, words in cases:
            answer = await client.post(edit, data=_form(csrf, **sent))
            assert answer.status_code == 422, sent
            assert f'id="{error_id}"' in answer.text, (sent, answer.text[:3000])
            error = answer.text[answer.text.index(f'id="{error_id}"') :]
            assert words in error[: error.index("</p>")], sent
            assert "There is a problem" in answer.text
            assert f'value="{sent.get("public_name", "")}"' in answer.text  # kept as typed
    assert await _attributes(api, pid, rid) == before
    assert await mine(app) == []


async def test_the_edit_pages_refuse_roles_by_direct_post(app: FastAPI, api: Api) -> None:
    page, sections, ids = await _built(api)
    pid = page["id"]
    section_edit = f"/status-pages/{pid}/sections/{sections[0]}/edit"
    resource_edit = f"/status-pages/{pid}/resources/{ids[0]}/edit"
    before = await _attributes(api, pid, ids[0])
    for role in ("viewer", "responder"):
        async with person(app, f"{role}@example.com", role) as (client, csrf):
            editor = (await client.get(f"/status-pages/{pid}")).text
            assert f"/sections/{sections[0]}/edit" not in editor
            assert f"/resources/{ids[0]}/edit" not in editor
            assert (await client.get(section_edit)).status_code == 403
            assert (await client.get(resource_edit)).status_code == 403
            renamed = await client.post(section_edit, data={"csrf": csrf, "name": "Mine"})
            assert renamed.status_code == 403
            edited = await client.post(resource_edit, data=_form(csrf, public_name="Mine"))
            assert edited.status_code == 403
            added = await client.post(resource_edit, data=_form(csrf, op=f"add-{RULE}"))
            assert added.status_code == 403
    assert await _attributes(api, pid, ids[0]) == before
    sections_url = f"/api/v2/status-pages/{pid}/sections"
    assert [s["attributes"]["name"] for s in (await api.get(sections_url)).json()["data"]] == [
        "Website",
        "Jobs",
    ]
    assert await mine(app) == []


async def test_another_teams_section_or_resource_is_a_404(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    theirs, their_sections, their_ids = await _built(other_api)
    own = await _page(api, "own-status")
    before = await _attributes(other_api, theirs["id"], their_ids[0])
    async with person(app, "ann@example.com", "owner") as (client, csrf):
        for page_id in (theirs["id"], own["id"]):  # their page, or mine naming their parts
            section_edit = f"/status-pages/{page_id}/sections/{their_sections[0]}/edit"
            resource_edit = f"/status-pages/{page_id}/resources/{their_ids[0]}/edit"
            assert (await client.get(section_edit)).status_code == 404
            assert (await client.get(resource_edit)).status_code == 404
            renamed = await client.post(section_edit, data={"csrf": csrf, "name": "Mine"})
            assert renamed.status_code == 404
            edited = await client.post(resource_edit, data=_form(csrf, public_name="Mine"))
            assert edited.status_code == 404
            added = await client.post(resource_edit, data=_form(csrf, op=f"add-{RULE}"))
            assert added.status_code == 404
        assert (await client.get(f"/status-pages/{own['id']}/resources/x/edit")).status_code == 404
    assert await _attributes(other_api, theirs["id"], their_ids[0]) == before
    assert await mine(app) == [] and await mine(app, "globex") == []
