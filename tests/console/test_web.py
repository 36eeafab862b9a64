"""The console's HTML kit: static files named by their content, the notice of a redirect,
browsers named as people name them."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD
from tests.factories.console import add_person
from watchpost.console.auth import safe_next
from watchpost.console.web import asset_url, assets, browser_name


@pytest.mark.parametrize(
    ("agent", "name"),
    [
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/131.0.0.0 Safari/537.36",
            "Chrome on Linux",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
            "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
            "Safari on iOS",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; rv:128.0) Gecko/20100101 Firefox/128.0",
            "Firefox on Windows",
        ),
        ("curl/8.5.0", "curl"),
        ("", "Unknown browser"),
    ],
)
def test_browser_names(agent: str, name: str) -> None:
    assert browser_name(agent) == name


async def test_static_files_are_named_by_content_and_kept(client: httpx.AsyncClient) -> None:
    css = asset_url("console.css")
    assert css.startswith("/console/static/console.") and css.endswith(".css")
    answer = await client.get(css)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/css")
    assert "immutable" in answer.headers["cache-control"]
    assert answer.content == assets()[css.rsplit("/", 1)[1]].body
    assert (await client.get("/console/static/console.0000.css")).status_code == 404
    js = await client.get(asset_url("console.js"))
    assert js.headers["content-type"].startswith("text/javascript")


@pytest.mark.parametrize(
    ("wanted", "went"),
    [
        ("/monitors/3?range=7d", "/monitors/3?range=7d"),
        ("//evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("https://evil.example/", "/"),
        ("javascript:alert(1)", "/"),
        ("/ok\nSet-Cookie: x=1", "/"),
        ("", "/"),
        (None, "/"),
    ],
)
def test_where_to_go_after_signing_in_is_a_path_of_this_server(
    wanted: str | None, went: str
) -> None:
    assert safe_next(wanted) == went


async def test_a_hostile_next_after_sign_in_stays_here(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await add_person(app, email="ann@example.com")
    answer = await client.post(
        "/login?next=//evil.example/x", data={"email": "ann@example.com", "password": TEST_PASSWORD}
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/"
