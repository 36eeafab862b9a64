"""Heartbeats, collector targets and groups through the console's forms: the same objects as
the API creates from the same body, the API's messages beside the fields, secrets kept."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.console.form_pages import error_beside, form_of, post_form
from tests.factories.api import TEST_PASSWORD, Api, data, errors
from tests.factories.console import add_person, sign_in
from watchpost.collectors.target_kinds import KIND_RULES
from watchpost.console import form_kit

EMAIL = "ann@example.com"
HEARTBEATS = "/api/v2/heartbeats"
COLLECTORS = "/api/v1/collectors"
TARGET_MINIMAL = {
    "port": "5432",
    "ssl_mode": "require",
    "tls": "true",
    "service": "web",
    "endpoint": "https://metrics.example.com/metrics",
}


async def _signed_in(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email=EMAIL, role="admin")
    await sign_in(client, EMAIL)


def _id(answer: httpx.Response, prefix: str) -> str:
    assert answer.status_code == 303, answer.text[:3000]
    location = answer.headers["location"]
    assert location.startswith(prefix)
    return location.rsplit("/", 1)[1]


async def test_a_heartbeat_created_by_the_form_is_what_the_api_creates(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await _signed_in(app, client)
    answer = await post_form(client, "/heartbeats/new", "/heartbeats/new", name="Backup")
    by_form = data(await api.get(f"{HEARTBEATS}/{_id(answer, '/heartbeats/')}"))["attributes"]
    by_api = data(await api.post(HEARTBEATS, {"name": "Backup"}), 201)["attributes"]
    assert by_form.pop("url") != by_api.pop("url")  # each its own ping token
    assert by_form == by_api


async def test_a_heartbeats_period_out_of_range_and_editing(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await _signed_in(app, client)
    answer = await post_form(client, "/heartbeats/new", "/heartbeats/new", name="B", period="5")
    assert answer.status_code == 422
    messages, fields = errors(await api.post(HEARTBEATS, {"name": "B", "period": 5}))
    assert fields == ["period"] and error_beside(answer.text, "period") == " ".join(messages)
    created = data(await api.post(HEARTBEATS, {"name": "Backup", "period": 3600}), 201)
    page = f"/heartbeats/{created['id']}/edit"
    assert 'value="3600"' in (await client.get(page)).text
    saved = await post_form(client, page, page, name="Nightly backup", grace="60")
    assert _id(saved, "/heartbeats/") == created["id"]
    after = data(await api.get(f"{HEARTBEATS}/{created['id']}"))["attributes"]
    assert (after["name"], after["period"], after["grace"]) == ("Nightly backup", 3600, 60)


@pytest.mark.parametrize(
    "kind", ["postgres", "mysql", "redis", "elasticsearch", "nginx", "prometheus"]
)
async def test_a_target_created_by_the_form_is_what_the_api_creates(
    app: FastAPI, client: httpx.AsyncClient, api: Api, kind: str
) -> None:
    await _signed_in(app, client)
    collector = data(await api.post(COLLECTORS, {"name": "Main"}), 201)["id"]
    rule = KIND_RULES[kind]
    body = {"kind": kind, "host": "db.example.com"}
    body |= {name: TARGET_MINIMAL[name] for name in rule.required}
    page = f"/targets/new?collector={collector}&kind={kind}"
    answer = await post_form(
        client, page, "/targets/new", **{k: v for k, v in body.items() if k != "kind"}
    )
    target_id = _id(answer, "/targets/")
    listed = (await api.get(f"{COLLECTORS}/{collector}/targets")).json()["data"]
    by_form = next(item for item in listed if item["id"] == target_id)["attributes"]
    json_body = {**body, **({"port": int(body["port"])} if "port" in body else {})}
    by_api = data(await api.post(f"{COLLECTORS}/{collector}/targets", json_body), 201)
    assert by_form == by_api["attributes"]


async def test_a_targets_error_and_its_secret_kept_on_edit(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await _signed_in(app, client)
    collector = data(await api.post(COLLECTORS, {"name": "Main"}), 201)["id"]
    page = f"/targets/new?collector={collector}&kind=postgres"
    bad = await post_form(client, page, "/targets/new", host="db.example.com", port="99999")
    assert bad.status_code == 422
    body = {"kind": "postgres", "host": "db.example.com", "port": 99999}
    messages, fields = errors(await api.post(f"{COLLECTORS}/{collector}/targets", body))
    assert set(fields) == {"port", "ssl_mode"}
    assert error_beside(bad.text, "port") == " ".join(m for m in messages if m.startswith("port"))
    assert "ssl_mode is required for postgres targets" in error_beside(bad.text, "ssl_mode")
    created = data(
        await api.post(
            f"{COLLECTORS}/{collector}/targets",
            {**body, "port": 5432, "ssl_mode": "require", "password": TEST_PASSWORD},
        ),
        201,
    )
    edit = f"/targets/{created['id']}/edit"
    shown = (await client.get(edit)).text
    assert TEST_PASSWORD not in shown and "Set. Leave empty to keep it." in shown
    assert {name for name, _ in form_of(shown, edit)} >= {"host", "port", "password"}
    saved = await post_form(client, edit, edit, username="reader")
    assert _id(saved, "/targets/") == created["id"]
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        from watchpost.collectors.target_requests import find_target

        target = await find_target(db, team_id=api.team_id, target_id=int(created["id"]))
        assert target.username == "reader" and target.password_encrypted is not None


@pytest.mark.parametrize(
    ("kind", "path"),
    [("monitor", "/api/v2/monitor-groups"), ("heartbeat", "/api/v2/heartbeat-groups")],
)
async def test_groups_are_created_and_edited(
    app: FastAPI, client: httpx.AsyncClient, api: Api, kind: str, path: str
) -> None:
    await _signed_in(app, client)
    new = f"/groups/new?kind={kind}"
    answer = await post_form(client, new, new, name="Production", sort_index="2")
    assert answer.status_code == 303, answer.text[:3000]
    (group,) = (await api.get(path)).json()["data"]
    by_api = data(await api.post(path, {"name": "Production", "sort_index": 2}), 201)
    assert group["attributes"] == by_api["attributes"]
    edit = f"/groups/{kind}/{group['id']}/edit"
    blank = await post_form(client, edit, edit, name="")
    assert blank.status_code == 422
    messages, _ = errors(await api.patch(f"{path}/{group['id']}", {"name": None}))
    assert error_beside(blank.text, "name") == " ".join(messages)
    renamed = await post_form(client, edit, edit, name="Staging")
    assert renamed.status_code == 303
    assert data(await api.get(f"{path}/{group['id']}"))["attributes"]["name"] == "Staging"


async def test_a_monitor_group_is_offered_in_the_monitor_form(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await _signed_in(app, client)
    group = data(await api.post("/api/v2/monitor-groups", {"name": "Shop"}), 201)["id"]
    page = (await client.get("/monitors/new")).text
    assert f'<option value="{group}">Shop</option>' in page
    answer = await post_form(
        client, "/monitors/new", "/monitors/new", url="https://example.com", monitor_group_id=group
    )
    assert answer.status_code == 303
    (monitor,) = (await api.get("/api/v2/monitors")).json()["data"]
    assert monitor["attributes"]["monitor_group_id"] == int(group)


async def test_a_choice_past_the_lists_end_is_offered_and_kept(
    app: FastAPI, client: httpx.AsyncClient, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The group and policy selects offer the first MAX_CHOICES by name and the object's own
    choice wherever it stands: saving the form unchanged keeps it (it was cleared before)."""
    monkeypatch.setattr(form_kit, "MAX_CHOICES", 2)
    await _signed_in(app, client)
    for name in ("Alpha", "Beta"):
        await api.post("/api/v2/monitor-groups", {"name": name})
        await api.post("/api/v3/policies", {"name": name, "steps": []})
        await api.post("/api/v2/heartbeat-groups", {"name": name})
    group = data(await api.post("/api/v2/monitor-groups", {"name": "Zed"}), 201)["id"]
    policy = data(await api.post("/api/v3/policies", {"name": "Zed", "steps": []}), 201)["id"]
    beat_group = data(await api.post("/api/v2/heartbeat-groups", {"name": "Zed"}), 201)["id"]
    assert "Zed" not in (await client.get("/monitors/new")).text
    monitor = data(
        await api.post(
            "/api/v2/monitors",
            {
                "url": "https://example.com",
                "monitor_group_id": int(group),
                "policy_id": int(policy),
            },
        ),
        201,
    )["id"]
    heartbeat = data(
        await api.post(
            "/api/v2/heartbeats", {"name": "Backup", "heartbeat_group_id": int(beat_group)}
        ),
        201,
    )["id"]
    edit = f"/monitors/{monitor}/edit"
    page = (await client.get(edit)).text
    assert f'<option value="{group}" selected>Zed</option>' in page
    assert f'<option value="{policy}" selected>Zed</option>' in page
    assert (await post_form(client, edit, edit)).status_code == 303
    kept = data(await api.get(f"/api/v2/monitors/{monitor}"))["attributes"]
    assert (kept["monitor_group_id"], str(kept["policy_id"])) == (int(group), policy)
    edit = f"/heartbeats/{heartbeat}/edit"
    assert (await post_form(client, edit, edit)).status_code == 303
    kept = data(await api.get(f"/api/v2/heartbeats/{heartbeat}"))["attributes"]
    assert kept["heartbeat_group_id"] == int(beat_group)
