"""Security headers (http/security.py): every answer says `nosniff`; every HTML page carries
a Content-Security-Policy that lets exactly its own inline styles and scripts run (by hash,
never 'unsafe-inline' for scripts), is never framed, and sends no Referer elsewhere; answers
that are not HTML load nothing."""

from __future__ import annotations

import base64
import hashlib
import re

import httpx
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from starlette.routing import Match

from tests.factories.api import TEST_PASSWORD, Api
from tests.factories.html_pages import CUSTOM_CSS, PAGES, seed_html_pages
from tests.public_pages.html import parse
from watchpost.http.security import PAGE_POLICY
from watchpost.public_pages import endpoints as page_endpoints

NOTHING = "default-src 'none'; frame-ancestors 'none'"


def _policy(response: httpx.Response) -> dict[str, list[str]]:
    header = response.headers.get("content-security-policy")
    assert header, f"{response.request.url.path}: no Content-Security-Policy"
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _check_page(response: httpx.Response) -> dict[str, list[str]]:
    """The headers of an HTML page, and its inline styles and scripts allowed by its policy."""
    path = response.request.url.path
    assert response.headers["content-type"].startswith("text/html"), path
    assert response.headers["x-content-type-options"] == "nosniff", path
    assert response.headers["referrer-policy"] == "same-origin", path
    policy = _policy(response)
    assert policy["default-src"] == ["'none'"], path
    assert policy["frame-ancestors"] == ["'none'"], path
    assert policy["base-uri"] == ["'none'"], path
    assert policy["form-action"] == ["'self'"], path
    assert "'unsafe-inline'" not in policy.get("script-src", []), path
    tree = parse(response.text)
    for kind in ("style", "script"):
        allowed = policy.get(f"{kind}-src", policy["default-src"])
        for node in tree.find_all(kind):
            if "src" in node.attrs:
                assert "'self'" in allowed, path
            elif "'unsafe-inline'" not in allowed:
                assert _hash(node.raw_text) in allowed, (path, kind, node.raw_text[:80])
    attributes = [node.tag for node in tree.walk() if "style" in node.attrs]
    assert attributes == [], f"{path}: style attributes in {attributes}"
    return policy


async def test_every_html_page_answers_its_policy(
    api: Api, app: FastAPI, client: httpx.AsyncClient
) -> None:
    pages = await seed_html_pages(api, app)
    answers = {name: await client.get(path) for name, path in pages.items()}
    wrong = await client.post(
        "/status/locked/login",
        data={"password": "not it"},
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert statuses == {
        **dict.fromkeys(pages, 200),
        "page_404": 404,
        "unknown_page": 404,
        "password_form": 401,
    }
    assert wrong.status_code == 401
    for answer in [*answers.values(), wrong]:
        _check_page(answer)
    page = _policy(answers["page"])
    assert _hash(CUSTOM_CSS.replace("\n\n\r\n", "\n").replace("<", "\\3C ")) in page["style-src"]
    assert "Acme Inc" in answers["page"].text and "Public API" in answers["page"].text
    assert "Status 500" in answers["acknowledge"].text
    # The API pages: their scripts from this server and by hash, their requests to it.
    for name in ("docs", "redoc"):
        policy = _policy(answers[name])
        assert policy["script-src"][0] == "'self'"
        assert policy["connect-src"] == ["'self'"]
    assert any(s.startswith("'sha256-") for s in _policy(answers["docs"])["script-src"])


async def test_every_html_route_is_visited(
    api: Api, app: FastAPI, client: httpx.AsyncClient
) -> None:
    """A new HTML route joins seed_html_pages, or this fails."""
    pages = await seed_html_pages(api, app)
    visited = list(pages.values())
    for route in app.router.routes:
        if not isinstance(route, APIRoute) or "GET" not in (route.methods or ()):
            continue
        html = route.response_class is HTMLResponse or route.endpoint.__module__ == (
            page_endpoints.__name__
        )
        if not html:
            continue
        scope = {"type": "http", "method": "GET", "root_path": "", "app": app}
        matched = [
            path for path in visited if route.matches({**scope, "path": path})[0] is Match.FULL
        ]
        assert matched, f"no page of seed_html_pages is served by {route.path}"


async def test_a_page_logo_is_allowed_by_its_origin(api: Api, client: httpx.AsyncClient) -> None:
    body = {
        "subdomain": "logo",
        "company_name": "Logo",
        "logo_url": "https://cdn.example.com:8443/a/logo.png?v=1",
        "dark_logo_url": "https://Dark.Example.org/logo.svg",
        "theme": "system",
    }
    assert (await api.post(PAGES, body)).status_code == 201
    policy = _check_page(await client.get("/status/logo"))
    assert policy["img-src"] == [
        "'self'",
        "data:",
        "https://cdn.example.com:8443",
        "https://dark.example.org",
    ]


async def test_the_password_form_and_its_login(api: Api, client: httpx.AsyncClient) -> None:
    locked = {"subdomain": "locked", "company_name": "Locked", "password_enabled": True}
    assert (await api.post(PAGES, {**locked, "password": TEST_PASSWORD})).status_code == 201
    right = await client.post(
        "/status/locked/login",
        data={"password": TEST_PASSWORD},
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert right.status_code == 303
    assert right.headers["x-content-type-options"] == "nosniff"
    _check_page(await client.get("/status/locked"))


async def test_answers_that_are_not_html_load_nothing(api: Api, client: httpx.AsyncClient) -> None:
    assert (await api.post(PAGES, {"subdomain": "acme", "company_name": "Acme"})).status_code == 201
    answers = [
        await client.get("/healthz"),
        await api.get("/api/v2/monitors"),
        await client.get("/api/v2/monitors"),  # 401
        await client.get("/api/v2/no-such-thing"),  # 404
        await api.post("/api/v2/monitors", {"url": 1}),  # 422
        await client.get("/status/acme/api/v2/summary.json"),
        await client.get("/status/acme/badge.svg"),
        await client.get("/status/acme/feed.atom"),
        await client.get("/openapi.json"),
        await client.get("/docs/assets/swagger-ui-bundle.js"),
    ]
    for answer in answers:
        path = answer.request.url.path
        assert answer.headers["x-content-type-options"] == "nosniff", path
        assert answer.headers["content-security-policy"] == NOTHING, path
        assert "referrer-policy" not in answer.headers, path
    assert [a.status_code for a in answers[:5]] == [200, 200, 401, 404, 422]


async def test_a_304_keeps_the_stored_policy(api: Api, client: httpx.AsyncClient) -> None:
    """A 304 of a page carries no policy: a browser would replace the page's stored one."""
    assert (await api.post(PAGES, {"subdomain": "acme", "company_name": "Acme"})).status_code == 201
    first = await client.get("/status/acme")
    again = await client.get("/status/acme", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert again.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" not in again.headers
    assert _policy(first) != {}


def test_the_default_page_policy_runs_no_script() -> None:
    assert "script-src" not in PAGE_POLICY
    assert re.match(r"default-src 'none'; ", PAGE_POLICY)
