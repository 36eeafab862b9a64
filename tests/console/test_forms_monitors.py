"""Creating and editing monitors through the console's forms: what the form creates is what
the API creates from the same body, and the API's own messages appear beside the fields."""

from __future__ import annotations

import html
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.console.form_pages import error_beside, form_of, post_form
from tests.factories.api import TEST_PASSWORD, Api, data, errors
from tests.factories.console import add_person, sign_in
from tests.factories.monitors import MINIMAL, MONITORS
from watchpost.audit.models import AuditEvent

EMAIL = "ann@example.com"


def _typed(body: dict[str, Any]) -> dict[str, Any]:
    """A JSON body's values as a person types them into the form."""
    return {
        name: ", ".join(map(str, value)) if isinstance(value, list) else value
        for name, value in body.items()
        if name != "monitor_type"
    }


async def _signed_in(app: FastAPI, client: httpx.AsyncClient, role: str = "admin") -> None:
    await add_person(app, email=EMAIL, role=role)
    await sign_in(client, EMAIL)


@pytest.mark.parametrize("monitor_type", sorted(MINIMAL))
async def test_each_type_created_by_the_form_is_what_the_api_creates(
    app: FastAPI, client: httpx.AsyncClient, api: Api, monitor_type: str
) -> None:
    await _signed_in(app, client)
    body = MINIMAL[monitor_type]
    page = f"/monitors/new?type={monitor_type}"
    answer = await post_form(client, page, "/monitors/new", **_typed(body))
    assert answer.status_code == 303, error_beside(answer.text, "url") or answer.text[:2000]
    location = answer.headers["location"]
    assert location.startswith("/monitors/")
    by_form = data(await api.get(f"{MONITORS}/{location.rsplit('/', 1)[1]}"))
    by_api = data(await api.post(MONITORS, body), 201)
    assert by_form["attributes"] == by_api["attributes"]


async def test_the_form_shows_only_the_types_fields(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await _signed_in(app, client)
    tcp = (await client.get("/monitors/new?type=tcp")).text
    names = {name for name, _ in form_of(tcp, "/monitors/new")}
    assert "port" in names and "http_method" not in names and "auth_password" not in names
    assert 'for="monitor_type">Monitor type<' in tcp
    status = (await client.get("/monitors/new?type=status")).text
    names = {name for name, _ in form_of(status, "/monitors/new")}
    assert "port" not in names and {"http_method", "auth_password"} <= names
    assert 'for="auth_password">Password (HTTP basic auth)' in status


@pytest.mark.parametrize(
    ("monitor_type", "name", "value"),
    [
        ("status", "url", "not a url"),
        ("tcp", "port", "70000"),
        ("status", "check_frequency", "10"),
        ("status", "check_frequency", "often"),
        ("smtp", "port", "25,2525"),
        ("dns", "request_body", "not a domain!"),
    ],
)
async def test_an_invalid_value_shows_the_apis_message_beside_the_field(
    app: FastAPI, client: httpx.AsyncClient, api: Api, monitor_type: str, name: str, value: str
) -> None:
    await _signed_in(app, client)
    body = {**MINIMAL[monitor_type], name: value}
    page = f"/monitors/new?type={monitor_type}"
    answer = await post_form(client, page, "/monitors/new", **_typed(body))
    assert answer.status_code == 422
    shown = error_beside(answer.text, name)
    json_value: Any = int(value) if value.isdigit() and name == "check_frequency" else value
    messages, fields = errors(await api.post(MONITORS, {**MINIMAL[monitor_type], name: json_value}))
    assert fields == [name]
    assert shown == " ".join(messages)
    assert 'class="error-summary"' in answer.text and f'href="#{name}"' in answer.text
    assert html.escape(value) in answer.text  # what was typed is kept
    listed = (await api.get(MONITORS)).json()["data"]
    assert listed == []


async def test_editing_keeps_the_password_when_left_empty(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await _signed_in(app, client)
    created = data(
        await api.post(
            MONITORS,
            {**MINIMAL["status"], "auth_username": "ops", "auth_password": TEST_PASSWORD},
        ),
        201,
    )
    page = f"/monitors/{created['id']}/edit"
    shown = (await client.get(page)).text
    assert TEST_PASSWORD not in shown and "Set. Leave empty to keep it." in shown
    answer = await post_form(client, page, page, pronounceable_name="Shop", check_frequency="60")
    assert answer.status_code == 303, answer.text[:3000]
    after = data(await api.get(f"{MONITORS}/{created['id']}"))["attributes"]
    assert after["pronounceable_name"] == "Shop" and after["check_frequency"] == 60
    monitor_values = await _password_state(app, int(created["id"]))
    assert monitor_values == "set"
    cleared = await post_form(client, page, page, auth_password__clear="on")
    assert cleared.status_code == 303
    assert await _password_state(app, int(created["id"])) is None


async def _password_state(app: FastAPI, monitor_id: int) -> str | None:
    from watchpost.monitors import service

    async with app.state.ctx.db.write_sessions() as db, db.begin():
        monitor = await service.get_monitor(db, team_id=1, monitor_id=monitor_id)
        value = service.monitor_values(monitor)["auth_password"]
        return value if isinstance(value, str) else None


async def test_changing_the_type_when_editing(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await _signed_in(app, client)
    created = data(await api.post(MONITORS, MINIMAL["status"]), 201)
    page = f"/monitors/{created['id']}/edit"
    answer = await post_form(client, f"{page}?type=tcp", page, url="db.example.com", port="5432")
    assert answer.status_code == 303, answer.text[:3000]
    after = data(await api.get(f"{MONITORS}/{created['id']}"))["attributes"]
    assert after["monitor_type"] == "tcp" and after["port"] == "5432"
    assert after["request_timeout"] == 5000 and after["http_method"] is None


async def test_creating_is_audited(app: FastAPI, client: httpx.AsyncClient) -> None:
    await _signed_in(app, client)
    answer = await post_form(client, "/monitors/new", "/monitors/new", url="https://example.com")
    assert answer.status_code == 303
    async with app.state.ctx.db.write_sessions() as db:
        from sqlalchemy import select

        events = (await db.scalars(select(AuditEvent))).all()
    assert [(e.action, e.actor, e.subject) for e in events if e.action != "session.created"] == [
        ("monitor.created", EMAIL, "https://example.com")
    ]


async def test_editing_headers_keeps_their_ids_and_a_moved_url_asks_for_the_password(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await _signed_in(app, client)
    body = {
        **MINIMAL["status"],
        "request_headers": [{"name": "X-One", "value": "1"}, {"name": "X-Two", "value": "2"}],
        "auth_username": "ops",
        "auth_password": TEST_PASSWORD,
    }
    created = data(await api.post(MONITORS, body), 201)
    before = {h["name"]: h["id"] for h in created["attributes"]["request_headers"]}
    page = f"/monitors/{created['id']}/edit"
    assert "X-One: 1\nX-Two: 2" in (await client.get(page)).text
    saved = await post_form(client, page, page, request_headers="X-Two: 22\nX-Three: 3")
    assert saved.status_code == 303, saved.text[:3000]
    after = data(await api.get(f"{MONITORS}/{created['id']}"))["attributes"]["request_headers"]
    assert [(h["name"], h["value"]) for h in after] == [("X-Two", "22"), ("X-Three", "3")]
    assert after[0]["id"] == before["X-Two"] and after[1]["id"] not in before.values()
    moved = await post_form(client, page, page, url="https://other.example.com")
    assert moved.status_code == 422
    messages, fields = errors(
        await api.patch(f"{MONITORS}/{created['id']}", {"url": "https://other.example.com"})
    )
    assert fields == ["auth_password"]
    assert error_beside(moved.text, "auth_password") == " ".join(messages)
    assert 'value="https://other.example.com"' in moved.text
