"""Each domain of the token API, and the console, is built at the first request for one of
its paths (http/lazy_routes.py): until then a server holds none of them; that first request
is answered as an app built whole would answer it, and the route list is the same
afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from starlette.routing import BaseRoute, Route

from tests.conftest import make_api, new_app, own_context
from tests.factories.databases import SharedEngines
from tests.factories.processes import cli_env, run_python
from watchpost.app import health
from watchpost.clock import FrozenClock
from watchpost.console.routes import console_routes
from watchpost.http.docs import docs_routes
from watchpost.http.lazy_routes import LazyRoutes
from watchpost.public_pages.endpoints import fallback_routes
from watchpost.routes import (
    API_DOMAINS,
    api_collection,
    domain_routes,
    flat_routes,
    is_console_path,
    public_routes,
)
from watchpost.settings import Settings


@pytest.fixture
async def fresh_app(
    settings: Settings, clock: FrozenClock, engines: SharedEngines, tmp_path: Path
) -> AsyncIterator[FastAPI]:
    """An app nobody has asked anything yet (the shared app's groups are built by now)."""
    app = new_app(tmp_path)
    async with own_context(app, engines, settings, clock):
        yield app


@pytest.fixture
async def fresh_client(fresh_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=fresh_app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


def waiting(app: FastAPI) -> list[str]:
    """The names of the groups not built yet, as the app's route list holds them."""
    return [route.name for route in app.router.routes if isinstance(route, LazyRoutes)]


def described(routes: list[BaseRoute]) -> list[tuple[str, str, str, tuple[str, ...]]]:
    return [
        (
            type(route).__name__,
            getattr(route, "path", ""),
            getattr(route, "name", ""),
            tuple(sorted(route.methods or ())) if isinstance(route, Route) else (),
        )
        for route in routes
    ]


ALL = ["api:" + domain for domain in API_DOMAINS] + ["console"]


@pytest.mark.parametrize("domain", API_DOMAINS)
def test_each_domain_names_every_collection_it_serves(domain: str) -> None:
    served = {api_collection(route.path) for route in domain_routes(domain)}
    assert served == API_DOMAINS[domain]


def test_the_console_covers_every_path_it_serves_and_no_page_or_api_path() -> None:
    console = console_routes()
    assert console
    assert [route.path for route in console if not is_console_path(route.path)] == []
    # The status pages' paths build nothing: their fallback is the last route.
    assert [route.path for route in fallback_routes() if is_console_path(route.path)] == []
    assert not is_console_path("/status/acme/history") and not is_console_path("/api/v2/x")
    assert api_collection("/api/v2/monitors/12/sla") == "monitors"
    assert api_collection("/status/acme") is None and api_collection("/api/v2") is None


async def test_a_new_app_holds_neither_group_and_a_ping_builds_none(
    fresh_app: FastAPI, fresh_client: httpx.AsyncClient
) -> None:
    assert waiting(fresh_app) == ALL
    assert (await fresh_client.get("/healthz")).status_code == 200
    assert (await fresh_client.get("/api/v1/heartbeat/nosuchtoken")).status_code == 404
    assert (await fresh_client.get("/status/nosuchpage/history")).status_code == 404
    assert waiting(fresh_app) == ALL


async def test_the_first_api_request_builds_the_domains_of_its_collection_and_is_answered(
    fresh_app: FastAPI, fresh_client: httpx.AsyncClient
) -> None:
    api = await make_api(fresh_app, fresh_client, "acme")
    made = await api.post(
        "/api/v2/monitors", {"url": "https://example.com", "monitor_type": "status"}
    )
    assert made.status_code == 201, made.text
    assert waiting(fresh_app) == [name for name in ALL if name != "api:monitors"]
    listed = await api.get("/api/v2/monitors")
    monitor_id = made.json()["data"]["id"]
    assert [item["id"] for item in listed.json()["data"]] == [monitor_id]
    # The monitors' routes come first and serve no /sla: reports' are built and answer.
    sla = await api.get(f"/api/v2/monitors/{monitor_id}/sla")
    assert sla.status_code == 200, sla.text
    built = {"api:monitors", "api:reports"}
    assert waiting(fresh_app) == [name for name in ALL if name not in built]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", "/api/v2/monitors"),  # 405: the Allow header names every method of the path
        ("GET", "/api/v2/no-such-collection"),  # 404
        ("GET", "/api/v3/incidents"),  # an alias prefix: 401 without a token
        ("PATCH", "/api/v2/monitors/1/sla"),  # a route of reports, after monitors' routes
        ("DELETE", "/login"),  # the console's 405
        ("GET", "/no-such-page"),  # the console's 404 page
    ],
)
async def test_a_first_request_is_answered_as_by_an_app_built_whole(
    fresh_client: httpx.AsyncClient, client: httpx.AsyncClient, method: str, path: str
) -> None:
    await client.get("/api/v2/monitors")  # the shared app, its API built
    await client.get("/login")  # and its console
    first = await fresh_client.request(method, path)
    whole = await client.request(method, path)
    assert (first.status_code, first.headers.get("allow"), first.text) == (
        whole.status_code,
        whole.headers.get("allow"),
        whole.text,
    )


async def test_the_console_is_built_by_its_first_page(
    fresh_app: FastAPI, fresh_client: httpx.AsyncClient
) -> None:
    page = await fresh_client.get("/login")
    assert page.status_code == 200 and "<form" in page.text
    assert waiting(fresh_app) == ALL[:-1]


def test_the_routes_built_are_those_of_an_app_built_whole_in_the_same_order(
    tmp_path: Path,
) -> None:
    app = new_app(tmp_path)
    whole = [
        *flat_routes([health]),
        *public_routes(),
        *(route for domain in API_DOMAINS for route in domain_routes(domain)),
        *docs_routes(app.title, app.openapi_url or "/openapi.json"),
        *console_routes(),
        *fallback_routes(),
    ]
    built = described(app.routes)  # app.routes builds every group
    assert built[0][1] == app.openapi_url  # FastAPI's own, added first
    assert built[1:] == described(whole)
    assert waiting(app) == []


START = """
import sys
from watchpost.app import create_app
app = create_app()
from watchpost.delivery.worker import Deliverer  # what serve's lifespan imports
from watchpost.engine.loop import Engine
from watchpost.incidents.policy_actions import PolicyActions
groups = ("watchpost.console.routes", "watchpost.console.web", "watchpost.monitors.endpoints")
print(sorted(name for name in groups if name in sys.modules))
"""


def test_a_started_server_has_not_loaded_the_api_or_console_modules(tmp_path: Path) -> None:
    env = cli_env(
        f"sqlite:///{tmp_path / 'watchpost.db'}",
        WATCHPOST_DATA_DIR=str(tmp_path),
        WATCHPOST_SECRET_KEY="lazy-routes-test",
    )
    done = run_python(START, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
