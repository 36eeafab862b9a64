"""NUL characters (which PostgreSQL's text cannot hold) never reach the database: a path
holding one is a 404, a query string or form field a 422, on both backends alike; and no
database error's text shows a statement's parameters."""

from __future__ import annotations

import logging
import traceback

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tests.factories.api import Api, data, errors
from tests.factories.heartbeats import create_heartbeat

PAGES = "/api/v2/status-pages"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}

# (method, path, the answer's media type: what SQLite answered before PostgreSQL stopped
# failing on them)
PATHS = [
    ("GET", "/api/v1/heartbeat/%00", "application/json"),
    ("POST", "/api/v1/heartbeat/%00", "application/json"),
    ("GET", "/api/v1/heartbeat/%00/fail", "application/json"),
    ("POST", "/api/v1/heartbeat/%00/fail", "application/json"),
    ("GET", "/api/v1/heartbeat/a%00b/3", "application/json"),
    ("POST", "/api/v1/incoming-webhook/%00", "application/json"),
    ("GET", "/api/v2/monitors/1%00", "application/json"),
    ("GET", "/status/%00", "text/html"),
    ("GET", "/status/a%00b/history", "text/html"),
    ("GET", "/status/%00/subscribe", "text/html"),
    ("POST", "/status/%00/subscribe", "text/html"),
    ("POST", "/status/%00/login", "text/html"),
    ("GET", "/status/acme/%00", "text/html"),
]


async def test_a_path_holding_nul_is_a_404_never_a_500(
    api: Api, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    token = (await create_heartbeat(api)).token
    data(await api.post(PAGES, {"subdomain": "acme", "company_name": "Acme"}), 201)
    caplog.set_level(logging.INFO)
    for method, path, media in [
        *PATHS,
        ("GET", f"/api/v1/heartbeat/{token}%00", "application/json"),
    ]:
        response = await client.request(method, path, headers=api.headers)
        assert (response.status_code, method, path) == (404, method, path)
        assert response.headers["content-type"].startswith(media), path
    server = [record for record in caplog.records if record.name != "httpx"]  # the client's
    assert not [record for record in server if record.levelno >= logging.ERROR]
    assert not [record for record in server if token in record.getMessage()]


async def test_a_query_string_holding_nul_is_a_422_naming_the_parameters(
    api: Api, client: httpx.AsyncClient
) -> None:
    for path in ("/api/v2/monitors", "/api/v1/heartbeat/x", "/status/acme", "/docs"):
        response = await client.get(f"{path}?page=1&q=a%00b&r=%00&q=x", headers=api.headers)
        messages, fields = errors(response)
        assert fields == ["q", "r"]
        assert messages == [
            "q must not contain NUL characters",
            "r must not contain NUL characters",
        ]
    messages, fields = errors(await client.get("/api/v2/monitors?a%00=1", headers=api.headers))
    assert (messages, fields) == (["query parameter names must not contain NUL characters"], [])


async def test_a_form_field_holding_nul_is_a_422(api: Api, client: httpx.AsyncClient) -> None:
    body = {"subdomain": "acme", "company_name": "Acme", "subscribable": True}
    data(await api.post(PAGES, body), 201)
    for form in ("email=a%00%40example.com", "webhook_url=http%3A%2F%2Fexample.com%2F%00"):
        response = await client.post("/status/acme/subscribe", content=form, headers=FORM)
        messages, fields = errors(response)
        assert fields == [form.split("=")[0]] and "must not contain NUL" in messages[0]
    protected = {"subdomain": "locked", "company_name": "Acme", "password_enabled": True}
    data(await api.post(PAGES, {**protected, "password": "correct horse"}), 201)
    for form in ("password=correct%00horse", "password=x&next=%2Fstatus%2Flocked%00"):
        response = await client.post("/status/locked/login", content=form, headers=FORM)
        _, fields = errors(response)
        assert fields == [form.rsplit("&", 1)[-1].split("=")[0]]
    too_many = "&".join(f"f{n}=1" for n in range(11))
    response = await client.post("/status/locked/login", content=too_many, headers=FORM)
    assert errors(response) == (["the form has more than 10 fields"], [])


async def test_a_database_error_shows_no_parameters(app: FastAPI) -> None:
    marker = "nul-test-parameter-value-0d1f"
    with pytest.raises(DBAPIError) as caught:
        async with app.state.ctx.db.read_sessions() as session:
            await session.execute(
                text("SELECT missing FROM no_such_table WHERE x = :p"), {"p": marker}
            )
    shown = "".join(traceback.format_exception(caught.value))
    assert "no_such_table" in shown
    assert marker not in shown
