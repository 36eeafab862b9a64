"""Which page a request is for and who may see it: paths, hosts, 404s, IP allowlist,
password and its cookie, the attempt limit."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD, Api
from tests.public_pages.pages import change_page, new_page, visit
from watchpost.clock import FrozenClock
from watchpost.public_pages.access import allowed, request_host
from watchpost.public_pages.sessions import SESSION_SECONDS


async def test_a_page_is_served_at_status_subdomain(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(api, "acme")
    response, doc = await visit(client, "/status/acme")
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "Acme Corp" in doc.find("header").text
    _, again = await visit(client, "/status/ACME/")
    assert "Acme Corp" in again.find("header").text


@pytest.mark.parametrize("path", ["/status/nobody", "/status/nobody/history", "/status/x" * 40])
async def test_an_unknown_page_is_a_real_404_page(
    api: Api, client: httpx.AsyncClient, path: str
) -> None:
    response, doc = await visit(client, path, 404)
    assert response.headers["content-type"].startswith("text/html")
    assert doc.find("h1").text == "Page not found"
    assert "ETag" in response.headers and "Cache-Control" in response.headers


async def test_an_unpublished_page_is_a_404_everywhere(api: Api, client: httpx.AsyncClient) -> None:
    page_id = await new_page(api, "hidden", published=False, custom_domain="status.hidden.test")
    for path in ("/status/hidden", "/status/hidden/history", "/status/hidden/reports/1"):
        _, doc = await visit(client, path, 404)
        assert "Acme Corp" not in doc.text
    await visit(client, "/", 404, headers={"Host": "status.hidden.test"})
    await change_page(api, page_id, published=True)
    await visit(client, "/status/hidden")


async def test_other_paths_of_a_page_are_its_404(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(api, "acme")
    _, doc = await visit(client, "/status/acme/nothing/here", 404)
    assert "no such page" in doc.text
    _, doc = await visit(client, "/status/acme/reports/999", 404)
    _, doc = await visit(client, "/status/acme/reports/abc", 404)


async def test_a_custom_domain_serves_the_page_at_its_root(
    api: Api, client: httpx.AsyncClient
) -> None:
    await new_page(api, "acme", custom_domain="status.acme.test")
    headers = {"Host": "Status.Acme.Test:8443"}
    _, doc = await visit(client, "/", headers=headers)
    assert "Acme Corp" in doc.find("header").text
    # links drop the /status/{subdomain} prefix on the page's own host
    hrefs = [a.attrs["href"] for a in doc.find_all("a")]
    assert "/history" in hrefs and not any(h.startswith("/status/") for h in hrefs)
    _, history = await visit(client, "/history", headers=headers)
    assert history.find("h1").text == "Incident history"
    # the token API is not served on a page's host
    response = await client.get("/api/v2/monitors", headers={**headers, **api.headers})
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    # nor another page
    await new_page(api, "other")
    _, doc = await visit(client, "/status/other", 404, headers=headers)


async def test_the_status_page_domain_serves_each_subdomain(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    settings = app.state.ctx.settings
    app.state.ctx.settings = settings.model_copy(
        update={"status_page_domain": "status.example.org"}
    )
    try:
        await new_page(api, "acme")
        _, doc = await visit(client, "/", headers={"Host": "acme.status.example.org"})
        assert "Acme Corp" in doc.find("header").text
        await visit(client, "/", 404, headers={"Host": "nobody.status.example.org"})
        # the domain itself and deeper names are not pages: the server's own routes answer
        response = await client.get("/healthz", headers={"Host": "status.example.org"})
        assert response.status_code == 200
        deeper = await client.get("/", headers={"Host": "a.b.status.example.org"})
        # the server's own `/`: the console's sign-in page (and POST: log ingestion)
        assert deeper.status_code == 200 and "Acme Corp" not in deeper.text
        assert "<h1>Sign in</h1>" in deeper.text
    finally:
        app.state.ctx.settings = settings


async def test_the_api_host_is_untouched(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(api, "acme", custom_domain="status.acme.test")
    for host in ("testserver", "127.0.0.1:8000", "[::1]:8000", "localhost"):
        response = await client.get("/api/v2/status-pages", headers={**api.headers, "Host": host})
        assert response.status_code == 200, host


def test_request_host_normalises_the_header() -> None:
    def host(value: bytes) -> str | None:
        return request_host({"headers": [(b"host", value)]})

    assert host(b"Status.Example.COM.:443") == "status.example.com"
    assert host(b"[2001:db8::1]:80") == "2001:db8::1"
    assert request_host({"headers": []}) is None


def test_allowlist_matching() -> None:
    rules = ["# office", "192.0.2.0/24", "2001:db8::/32", "198.51.100.7"]
    assert allowed(rules, "192.0.2.55")
    assert allowed(rules, "::ffff:192.0.2.9")
    assert allowed(rules, "2001:db8::5")
    assert allowed(rules, "198.51.100.7")
    assert not allowed(rules, "198.51.100.8")
    assert not allowed(rules, "not-an-address")
    assert allowed([], "203.0.113.1") and allowed(["# only a comment"], "203.0.113.1")


async def test_the_ip_allowlist_restricts_by_client_address(app: FastAPI, api: Api) -> None:
    await new_page(api, "acme", ip_allowlist=["10.1.0.0/16"])
    for address, status in (("10.1.2.3", 200), ("10.2.0.1", 403)):
        transport = httpx.ASGITransport(app=app, client=(address, 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            response = await http.get("/status/acme")
            assert response.status_code == status, address
            if status == 403:
                assert "Acme Corp" not in response.text
                assert response.headers["cache-control"] == "no-store"
                login = await http.post("/status/acme/login", data={"password": "x"})
                assert login.status_code == 403


async def _protected(api: Api) -> str:
    return await new_page(api, "secret", password_enabled=True, password=TEST_PASSWORD)


async def test_a_protected_page_shows_only_the_password_form(
    api: Api, client: httpx.AsyncClient
) -> None:
    await _protected(api)
    for path in (
        "/status/secret",
        "/status/secret/history",
        "/status/secret/reports/1",
        "/status/secret/feed.rss",
        "/status/secret/api/v2/summary.json",
    ):
        response, doc = await visit(client, path, 401)
        form = doc.find("form")
        assert form.attrs["action"] == "/status/secret/login"
        assert form.find("input", type="password").attrs["name"] == "password"
        assert doc.find("input", name="next").attrs["value"] == path
        assert response.headers["cache-control"] == "no-store"
        assert doc.find("meta", name="robots").attrs["content"].startswith("noindex")
        assert "Incident history" not in doc.text


async def test_the_right_password_sets_a_cookie_that_opens_the_page(
    api: Api, client: httpx.AsyncClient
) -> None:
    await _protected(api)
    wrong = await client.post("/status/secret/login", data={"password": "nope"})
    assert wrong.status_code == 401 and "Wrong password" in wrong.text
    assert "set-cookie" not in wrong.headers
    right = await client.post(
        "/status/secret/login", data={"password": TEST_PASSWORD, "next": "/status/secret/history"}
    )
    assert right.status_code == 303
    assert right.headers["location"] == "/status/secret/history"
    cookie = right.headers["set-cookie"]
    assert "HttpOnly" in cookie and "Path=/status/secret" in cookie
    assert f"Max-Age={SESSION_SECONDS}" in cookie and "SameSite=lax" in cookie
    assert TEST_PASSWORD not in cookie
    response, doc = await visit(client, "/status/secret")
    assert response.headers["cache-control"] == "private, no-cache"
    assert response.headers["vary"] == "Cookie"
    assert doc.find("section", cls="state")


async def test_login_never_redirects_off_the_page(api: Api, client: httpx.AsyncClient) -> None:
    await _protected(api)
    for wanted in ("https://evil.test/", "//evil.test", "/status/other", "/status/secret/\\x"):
        right = await client.post(
            "/status/secret/login", data={"password": TEST_PASSWORD, "next": wanted}
        )
        assert right.headers["location"] == "/status/secret", wanted


async def test_the_cookie_expires_and_dies_with_a_new_password(
    api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    page_id = await _protected(api)
    await client.post("/status/secret/login", data={"password": TEST_PASSWORD})
    await visit(client, "/status/secret")
    clock.advance(SESSION_SECONDS + 1)
    await visit(client, "/status/secret", 401)
    await client.post("/status/secret/login", data={"password": TEST_PASSWORD})
    await visit(client, "/status/secret")
    await change_page(api, page_id, password=TEST_PASSWORD + "-2")
    await visit(client, "/status/secret", 401)


async def test_a_cookie_of_one_page_does_not_open_another(
    api: Api, client: httpx.AsyncClient
) -> None:
    await _protected(api)
    await new_page(api, "secret2", password_enabled=True, password=TEST_PASSWORD)
    login = await client.post("/status/secret/login", data={"password": TEST_PASSWORD})
    value = login.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    other_id = (await api.get("/api/v2/status-pages")).json()["data"][-1]["id"]
    client.cookies.set(f"wp_status_{other_id}", value)
    await visit(client, "/status/secret2", 401)
    client.cookies.set(f"wp_status_{other_id}", value[:-4] + "AAAA")
    await visit(client, "/status/secret2", 401)


async def test_password_attempts_are_limited_per_address(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    await _protected(api)
    limit = app.state.ctx.settings.status_page_login_per_minute
    for _ in range(limit):
        wrong = await client.post("/status/secret/login", data={"password": "guess"})
        assert wrong.status_code == 401
    blocked = await client.post("/status/secret/login", data={"password": TEST_PASSWORD})
    assert blocked.status_code == 429 and "Retry-After" in blocked.headers
    assert "set-cookie" not in blocked.headers
    transport = httpx.ASGITransport(app=app, client=("10.9.9.9", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        ok = await other.post("/status/secret/login", data={"password": TEST_PASSWORD})
        assert ok.status_code == 303


async def test_login_on_an_open_page_just_goes_there(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(api, "acme")
    response = await client.post("/status/acme/login", data={"password": "x"})
    assert response.status_code == 303 and response.headers["location"] == "/status/acme"
    response = await client.post("/status/nobody/login", data={"password": "x"})
    assert response.status_code == 404


async def test_an_oversized_login_form_is_refused_as_wrong(
    api: Api, client: httpx.AsyncClient
) -> None:
    await _protected(api)
    response = await client.post(
        "/status/secret/login",
        content=b"password=" + b"a" * 10_000,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 401


async def test_on_a_custom_domain_the_cookie_is_scoped_to_the_host_root(
    api: Api, client: httpx.AsyncClient
) -> None:
    await new_page(
        api,
        "secret",
        password_enabled=True,
        password=TEST_PASSWORD,
        custom_domain="status.secret.test",
    )
    headers = {"Host": "status.secret.test"}
    _, doc = await visit(client, "/history", 401, headers=headers)
    assert doc.find("form").attrs["action"] == "/login"
    assert doc.find("input", name="next").attrs["value"] == "/history"
    login = await client.post(
        "/login", data={"password": TEST_PASSWORD, "next": "/history"}, headers=headers
    )
    assert login.status_code == 303 and login.headers["location"] == "/history"
    assert "Path=/;" in login.headers["set-cookie"]


async def test_a_page_requiring_sso_is_shown_to_nobody(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(api, "sso", require_sso=True)
    _, doc = await visit(client, "/status/sso", 403)
    assert "single sign-on" in doc.text and "Acme Corp" not in doc.text
    response = await client.post("/status/sso/login", data={"password": "x"})
    assert response.status_code == 403
