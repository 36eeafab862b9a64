"""The console's pickers over HTTP (console/pickers.py): a team of more than 1,000
monitors reaches the 1,001st through Find in the maintenance form and the status page
editor, and saves it; what is chosen stays offered while the list is narrowed; `%`, `_`
and `\\` are found as themselves; hostile `?find=` values are a 200, never a 500; a small
team's forms carry no Find; the policy form narrows its people and keeps those named."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.console.picker_support import HOSTILE, many_monitors, option_of, value_of
from tests.console.team_support import person
from tests.factories.api import Api, data
from tests.factories.console import add_person

MONITORS = "/api/v2/monitors"
NOTE = "Showing the first 1,000 of 1,001 — type in Find to narrow"


def _boxes(html: str, name: str) -> int:
    return html.count(f'name="{name}" value=')


async def test_the_1001st_monitor_is_found_chosen_and_saved_in_a_window(
    app: FastAPI, api: Api
) -> None:
    await many_monitors(app, api.team_id, 1001)
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        page = (await admin.get("/maintenance-windows/new")).text
        assert _boxes(page, "monitors") == 1000 and NOTE in page
        assert "Service 1001" not in page and 'id="find-covers-text"' in page
        found = (await admin.get("/maintenance-windows/new?find=sERVICE+1001")).text
        assert _boxes(found, "monitors") == 1 and NOTE not in found
        last = value_of(found, "Service 1001")
        by_url = (await admin.get("/maintenance-windows/new?find=service-1001.example")).text
        assert value_of(by_url, "Service 1001") == last
        form = {
            "csrf": csrf,
            "find": "service 1001",
            "maintenance_from": "02:00",
            "maintenance_to": "03:00",
            "maintenance_timezone": "UTC",
            "monitors": [last],
        }
        wrong = await admin.post("/maintenance-windows/new", data={**form, "maintenance_to": ""})
        assert wrong.status_code == 422 and _boxes(wrong.text, "monitors") == 1
        assert f'value="{last}" checked' in wrong.text  # the narrowed list, still chosen
        assert (await admin.post("/maintenance-windows/new", data=form)).status_code == 303
        window = data(await api.get(f"{MONITORS}/{last}"))["attributes"]
        assert (window["maintenance_from"], window["maintenance_to"]) == ("02:00:00", "03:00:00")
        edit = "/maintenance-windows/edit?from=02%3A00%3A00&to=03%3A00%3A00&tz=UTC&days="
        again = (await admin.get(edit)).text
        assert f'value="{last}" checked' in again and _boxes(again, "monitors") == 1001
        narrowed = (await admin.get(edit + "&find=Service+0002")).text
        assert _boxes(narrowed, "monitors") == 2 and f'value="{last}" checked' in narrowed
        assert 'name="from" value="02:00:00"' in narrowed  # the Find keeps the window
        # Saved from the narrowed form: the window keeps the 1,001st and adds no. 2.
        second = value_of(narrowed, "Service 0002")
        moved = {
            **form,
            "monitors": [last, second],
            "old_from": "02:00:00",
            "old_to": "03:00:00",
            "old_tz": "UTC",
            "old_days": "",
        }
        assert (await admin.post("/maintenance-windows/edit", data=moved)).status_code == 303
    for kept in (last, second):
        window = data(await api.get(f"{MONITORS}/{kept}"))["attributes"]
        assert window["maintenance_from"] == "02:00:00"


async def _small_team(api: Api) -> dict[str, str]:
    names = {}
    for name in ("100% uptime", "snake_case", "Plain", "back\\slash"):
        body = {"url": "https://example.com/x", "pronounceable_name": name}
        names[name] = str(data(await api.post(MONITORS, body), 201)["id"])
    return names


async def test_find_takes_its_text_as_plain_text_and_a_small_team_has_no_find(
    app: FastAPI, api: Api
) -> None:
    names = await _small_team(api)
    async with person(app, "ann@example.com", "admin") as (admin, _):
        plain = (await admin.get("/maintenance-windows/new")).text
        assert _boxes(plain, "monitors") == 4
        assert 'name="find"' not in plain and "Showing the first" not in plain
        for text, expected in (
            ("%25", ["100% uptime"]),
            ("_", ["snake_case"]),
            ("%5C", ["back\\slash"]),
            ("SNAKE", ["snake_case"]),
            ("nothing", []),
        ):
            page = (await admin.get(f"/maintenance-windows/new?find={text}")).text
            assert _boxes(page, "monitors") == len(expected), text
            for name in expected:
                assert value_of(page, name) == names[name]
            assert 'id="find-covers-text"' in page  # shown while a text is given
        none = (await admin.get("/maintenance-windows/new?find=nothing")).text
        assert "No monitor or heartbeat matches the text found." in none


async def test_hostile_find_values_are_answered_on_every_picker(app: FastAPI, api: Api) -> None:
    await _small_team(api)
    page = data(
        await api.post("/api/v2/status-pages", {"subdomain": "acme", "company_name": "A"}), 201
    )
    shift = {
        "starts_at": "2026-01-02T00:00:00Z",
        "ends_at": "2026-01-03T00:00:00Z",
        "users": ["ann@example.com"],
    }
    async with person(app, "ann@example.com", "admin") as (admin, _):
        event = data(await api.post("/api/v2/on-calls/default/events", shift), 201)
        paths = (
            "/maintenance-windows/new",
            f"/status-pages/{page['id']}",
            "/policies/new",
            "/on-call/default",
            f"/on-call/default/events/{event['id']}/edit",
        )
        for path in paths:
            for text in HOSTILE:
                answer = await admin.get(f"{path}?find={text}")
                if "%00" in text:  # the app refuses NUL in any query value, in the API's shape
                    assert answer.status_code == 422, (path, text[:20])
                    assert "find must not contain NUL characters" in answer.text
                    continue
                assert answer.status_code == 200, (path, text[:20], answer.text[:300])
                assert "<script>alert" not in answer.text
                assert "a" * 101 not in answer.text  # cut to 100 characters
        long = (await admin.get(f"/maintenance-windows/new?find={'a' * 5000}")).text
        assert f'value="{"a" * 100}"' in long


async def test_the_status_page_editor_adds_the_1001st_monitor(app: FastAPI, api: Api) -> None:
    await many_monitors(app, api.team_id, 1001)
    page = data(
        await api.post("/api/v2/status-pages", {"subdomain": "acme", "company_name": "A"}), 201
    )
    path = f"/status-pages/{page['id']}"
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        editor = (await admin.get(path)).text
        assert editor.count('value="Monitor:') == 1000 and f"Monitors: {NOTE}" in editor
        assert 'id="find-item-text"' in editor and "Service 1001" not in editor
        found = (await admin.get(f"{path}?find=service+1001")).text
        assert found.count('value="Monitor:') == 1 and NOTE not in found
        item = option_of(found, "Service 1001")
        wrong = await admin.post(
            f"{path}/resources", data={"csrf": csrf, "item": item, "widget_type": "nonsense"}
        )
        assert wrong.status_code == 422 and f'value="{item}" selected' in wrong.text
        added = await admin.post(
            f"{path}/resources", data={"csrf": csrf, "item": item, "widget_type": "plain"}
        )
        assert added.status_code == 303
    resources = (await api.get(f"/api/v2/status-pages/{page['id']}/resources")).json()["data"]
    assert [r["attributes"]["resource_id"] for r in resources] == [int(item.split(":")[1])]


async def test_a_small_teams_status_page_editor_has_no_find(app: FastAPI, api: Api) -> None:
    await _small_team(api)
    page = data(
        await api.post("/api/v2/status-pages", {"subdomain": "acme", "company_name": "A"}), 201
    )
    async with person(app, "ann@example.com", "admin") as (admin, _):
        editor = (await admin.get(f"/status-pages/{page['id']}")).text
        assert editor.count('value="Monitor:') == 4 and 'name="find"' not in editor
        narrowed = (await admin.get(f"/status-pages/{page['id']}?find=%25")).text
        assert re.findall(r'value="Monitor:\d+"', narrowed) == [
            f'value="{option_of(narrowed, "100% uptime")}"'
        ]
    async with person(app, "vic@example.com", "viewer") as (viewer_, _):
        shown = await viewer_.get(f"/status-pages/{page['id']}?find=x")
        assert shown.status_code == 200 and 'name="find"' not in shown.text


async def test_the_policy_form_narrows_its_choices_and_keeps_those_named(
    app: FastAPI, api: Api
) -> None:
    ada = await add_person(app, email="ada@example.com", role="responder", name="Ada Lovelace")
    await add_person(app, email="bob@example.com", role="responder", name="Bob Builder")
    carol = await add_person(app, email="carol@example.com", role="responder", name="Carol Singer")
    step = {"type": "escalation", "step_members": [{"type": "user", "id": carol}]}
    policy = data(await api.post("/api/v3/policies", {"name": "Rota", "steps": [step]}), 201)
    edit = f"/policies/{policy['id']}/edit"
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        plain = (await admin.get(edit)).text
        assert "Bob Builder" in plain and 'name="find"' not in plain
        narrowed = (await admin.get(f"{edit}?find=LOVELACE")).text
        assert "Ada Lovelace" in narrowed and "Bob Builder" not in narrowed
        assert f'value="{carol}" checked' in narrowed  # named by the step: kept
        assert 'type="hidden" name="find" value="LOVELACE"' in narrowed
        by_mail = (await admin.get(f"{edit}?find=bob%40")).text
        assert "Bob Builder" in by_mail and "Ada Lovelace" not in by_mail
        # An editing button keeps the text (and the choices it narrowed).
        form = {
            "csrf": csrf,
            "find": "lovelace",
            "name": "Rota",
            "repeat_count": "0",
            "repeat_delay": "0",
            "step_count": "1",
            "steps-0-type": "escalation",
            "steps-0-users": [str(carol), str(ada)],
            "op": "add",
            "new_step_type": "escalation",
        }
        added = await admin.post(edit, data=form)
        assert added.status_code == 200 and "Bob Builder" not in added.text
        assert 'type="hidden" name="find" value="lovelace"' in added.text
        saved = await admin.post(edit, data={**form, "op": "save", "step_count": "1"})
        assert saved.status_code == 303, saved.text[:300]
    stored = data(await api.get(f"/api/v3/policies/{policy['id']}"))["attributes"]["steps"]
    assert [m["id"] for m in stored[0]["step_members"]] == [carol, ada]
