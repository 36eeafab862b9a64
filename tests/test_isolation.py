"""Another team's objects are 404 on every object route, exactly like missing ones, untouched.

Covers every route with a path parameter, found by walking the app; a route no entry of the
registry in tests/factories/objects.py covers fails test_every_object_route_is_registered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.objects import OBJECTS, api_endpoints, covering
from watchpost.app import create_app
from watchpost.settings import Settings

MISSING_ID = 987654321


def _object_routes(folder: Path) -> list[str]:
    app = create_app(Settings(database_url=f"sqlite:///{folder / 'r.db'}", secret_key="r"))
    return sorted({e.path for e in api_endpoints(app) if "{" in e.path})


def test_every_object_route_is_registered(tmp_path: Path) -> None:
    uncovered = [path for path in _object_routes(tmp_path) if covering(path) is None]
    assert not uncovered, (
        f"routes without an isolation factory: {uncovered}. Register the object kind in "
        "tests/factories/objects.py with @register('<route of one object>', change={...}) and a factory "
        "that creates one object through the API and returns its URL."
    )


def _body(kind_route: str, method: str, suffix: str) -> Any:
    kind = OBJECTS[kind_route]
    if method == "PATCH" and not suffix:
        return kind.change
    return kind.bodies.get(f"{method} {suffix}".rstrip(), {})


def _missing(url: str) -> tuple[str, dict[str, str]]:
    """The URL with every id replaced by one that never existed, and the ids swapped.

    Another team must get exactly what it would get for objects that do not exist at all,
    wherever in a nested URL the lookup stops.
    """
    swapped: dict[str, str] = {}
    parts = url.split("/")
    for index, part in enumerate(parts):
        if part.isdigit():
            never = str(MISSING_ID + len(swapped))
            swapped[never] = part
            parts[index] = never
    return "/".join(parts), swapped


def _same_as_missing(
    response: httpx.Response, missing: httpx.Response, swapped: dict[str, str]
) -> bool:
    expected = missing.text
    for never, real in swapped.items():
        expected = expected.replace(never, real)
    return response.status_code == missing.status_code and response.text == expected


@pytest.mark.parametrize("route", sorted(OBJECTS))
async def test_other_teams_get_404_and_change_nothing(
    route: str, app: FastAPI, api: Api, other_api: Api
) -> None:
    kind = OBJECTS[route]
    url = await kind.create(api)
    endpoints = [e for e in api_endpoints(app) if "{" in e.path and covering(e.path) is kind]
    readable = sorted({url + e.path[len(route) :] for e in endpoints if e.method == "GET"})

    async def snapshot() -> dict[str, Any]:
        return {path: (await api.get(path)).json() for path in readable}

    before = await snapshot()
    assert (await api.get(url)).status_code == 200
    misses = []
    # DELETE last, so a wrongly allowed delete cannot hide a wrongly allowed change.
    for endpoint in sorted(endpoints, key=lambda e: (e.method == "DELETE", e.path)):
        suffix = endpoint.path[len(route) :]
        target = url + suffix
        body = _body(route, endpoint.method, suffix)
        response = await other_api.client.request(
            endpoint.method, target, json=body, headers=other_api.headers
        )
        missing_url, swapped = _missing(url)
        missing = await other_api.client.request(
            endpoint.method, missing_url + suffix, json=body, headers=other_api.headers
        )
        label = f"{endpoint.method} {endpoint.path}"
        expected = (404,) if endpoint.method in ("GET", "PATCH", "DELETE") else (404, 422)
        if response.status_code not in expected:
            misses.append(f"{label}: {response.status_code} {response.text}")
        elif not _same_as_missing(response, missing, swapped):
            misses.append(
                f"{label}: {response.text} differs from a missing object's {missing.text}"
            )
    assert not misses, "\n".join(misses)
    assert await snapshot() == before
    if readable:
        assert set(before) >= {url}
