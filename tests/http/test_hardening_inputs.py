"""Input limits: ids and page numbers are ASCII digits, every integer is bounded by its column,
raw values are never looked up before they are validated, and 405 names every method.

The integer tests are driven by /openapi.json, so a new integer field of any create or PATCH
route is covered (and must be documented with its bounds) the moment it exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute

from tests.factories.api import Api, data, errors
from tests.factories.objects import api_endpoints, covering, fill
from watchpost.validation import INT32_MAX, INT64_MAX

TOO_MANY_DIGITS = "9" * 5000
OUT_OF_ID_RANGE = (2**63, 2**64 - 1)
NOT_ASCII = ("\u00b2", "\u0661", "\uff11")  # superscript two, Arabic-Indic one, fullwidth one

# --------------------------------------------------------------------- ids in the path


async def test_a_path_id_in_other_digits_names_no_object(api: Api) -> None:
    created = data(await api.post("/api/v2/monitors", {"url": "https://example.com"}), 201)
    assert created["id"] == "1"
    assert (await api.get("/api/v2/monitors/1")).status_code == 200
    for text in (*NOT_ASCII, TOO_MANY_DIGITS, str(2**63), "1 "):
        response = await api.get(f"/api/v2/monitors/{text}")
        assert response.status_code == 404, (text[:20], response.text[:200])
        assert response.json()["errors"].startswith("Resource type monitor with id = ")


async def test_every_object_route_answers_404_for_a_non_ascii_id(app: FastAPI, api: Api) -> None:
    endpoints = [e for e in api_endpoints(app) if "{" in e.path]
    assert len(endpoints) > 30
    for endpoint in endpoints:
        for text in ("%C2%B2", "%D9%A1", TOO_MANY_DIGITS):
            response = await api.client.request(
                endpoint.method, fill(endpoint.path, text), headers=api.headers, json={}
            )
            assert response.status_code == 404, (endpoint.method, endpoint.path, response.text)


# ------------------------------------------------------------------ numbers in queries


def _paged(app: FastAPI) -> list[str]:
    return sorted(
        endpoint.path
        for endpoint in api_endpoints(app)
        if endpoint.method == "GET"
        and any(param.name == "page" for param in _query_params(endpoint.route))
    )


def _query_params(route: APIRoute) -> list[Any]:
    return list(route.dependant.query_params) + [
        param for sub in route.dependant.dependencies for param in sub.query_params
    ]


@pytest.mark.parametrize("name", ["page", "per_page"])
async def test_page_numbers_are_ascii_digits_in_range(app: FastAPI, api: Api, name: str) -> None:
    routes = _paged(app)
    assert "/api/v2/monitors" in routes and "/api/v2/incidents" in routes
    for path in routes:
        for text in (*NOT_ASCII, TOO_MANY_DIGITS, str(2**63), "0", "-1", "1.0", ""):
            response = await api.get(fill(path), params={name: text})
            messages, fields = errors(response, 422)
            assert fields == [name], (path, text[:20], messages)
    response = await api.get("/api/v2/monitors", params={"page": str(INT64_MAX)})
    assert data_list(response) == []


def data_list(response: httpx.Response) -> list[Any]:
    assert response.status_code == 200, response.text
    items = response.json()["data"]
    assert isinstance(items, list)
    return items


@pytest.mark.parametrize("name", ["monitor_id", "heartbeat_id"])
async def test_incident_filters_take_ids_in_ascii_digits(api: Api, name: str) -> None:
    for text in (*NOT_ASCII, TOO_MANY_DIGITS, str(2**63), str(2**64 - 1), "0", "x"):
        response = await api.get("/api/v2/incidents", params={name: text})
        assert errors(response, 422)[1] == [name], text[:20]
    assert data_list(await api.get("/api/v2/incidents", params={name: str(INT64_MAX)})) == []


# ------------------------------------------------------------------------ ping routes


async def test_a_ping_with_a_huge_exit_code_is_an_unknown_route(api: Api) -> None:
    made = data(await api.post("/api/v2/heartbeats", {"name": "nightly"}), 201)
    url = made["attributes"]["url"].replace("http://testserver", "")
    for token in ("x", url.rsplit("/", 1)[1]):
        for suffix in (TOO_MANY_DIGITS, "\u00b2", "%C2%B2", str(2**64)):
            for method in ("GET", "POST", "HEAD"):
                response = await api.client.request(method, f"/api/v1/heartbeat/{token}/{suffix}")
                assert response.status_code == 404, (method, suffix[:20], response.text[:100])
    after = data(await api.get(f"/api/v2/heartbeats/{made['id']}"))
    assert after["attributes"]["status"] == "pending"
    assert (await api.client.get(f"{url}/007")).status_code == 200  # still an exit code 7


# ---------------------------------------------------------------- numbers in JSON bodies


async def test_a_number_beyond_any_range_in_a_body_is_a_422_naming_it(api: Api) -> None:
    for literal in (TOO_MANY_DIGITS, "-" + TOO_MANY_DIGITS, "1e999", "18446744073709551616"):
        raw = '{"name": "g", "sort_index": ' + literal + "}"
        response = await api.client.post(
            "/api/v2/monitor-groups",
            content=raw,
            headers={**api.headers, "Content-Type": "application/json"},
        )
        assert errors(response, 422)[1] == ["sort_index"], literal[:20]
    response = await api.client.post(
        "/api/v2/monitor-groups",
        content='{"name": "g", "sort_index": 1e999',
        headers={**api.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400  # not JSON at all


async def test_a_whole_number_written_with_a_fraction_is_an_integer(api: Api) -> None:
    # JSON Schema (so the published schema) counts 5.0 as an integer; 5.5 is not one.
    created = data(await api.post("/api/v2/monitor-groups", {"name": "g", "sort_index": 5.0}), 201)
    assert created["attributes"]["sort_index"] == 5
    response = await api.post("/api/v2/monitor-groups", {"name": "g", "sort_index": 5.5})
    assert errors(response)[1] == ["sort_index"]


async def test_a_deeply_nested_body_is_refused_not_a_500(api: Api) -> None:
    cases = [(depth, inner) for depth in (300, 1000) for inner in ("1", '"\\u0000"')]
    for depth, inner in [*cases, (300, "1e999")]:
        raw = '{"name": "g", "deep": ' + "[" * depth + inner + "]" * depth + "}"
        response = await api.client.post(
            "/api/v2/monitor-groups",
            content=raw,
            headers={**api.headers, "Content-Type": "application/json"},
        )
        assert errors(response, 422)[1] == ["deep"], (depth, inner, response.text[:200])


# -------------------------------------------- every integer field, from the OpenAPI schema


def _integer_fields(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(top-level property, integer schema) for each property that may be an integer."""
    for name, prop in schema.get("properties", {}).items():
        for option in prop.get("anyOf", [prop]):
            if option.get("type") == "integer":
                yield name, option


def _all_integers(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if node.get("type") == "integer":
            yield where, node
        for key, value in node.items():
            yield from _all_integers(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _all_integers(value, f"{where}[{index}]")


def _write_operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method in ("post", "patch"):
            body = item.get(method, {}).get("requestBody", {}).get("content", {})
            # Pings take no token, probe agents a probe token (tests/locations): not the API's.
            if "application/json" in body and not path.startswith(
                ("/api/v1/heartbeat/", "/api/probe/v1/")
            ):
                yield path, method.upper(), body["application/json"]["schema"]


async def _concrete(api: Api, path: str) -> str:
    """path with its ids replaced by those of objects made for it (nothing to make: as is)."""
    if "{" not in path:
        return path
    kind = covering(path)
    assert kind is not None, path
    made = await kind.create(api)
    rest = path[len(kind.route) :]
    assert "{" not in rest, path
    return made + rest


async def test_every_integer_in_the_published_schema_is_bounded(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    unbounded = []
    found = 0
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            request = {
                "parameters": operation.get("parameters", []),
                "body": operation.get("requestBody", {}),
            }
            for where, schema in _all_integers(request, f"{method.upper()} {path}"):
                found += 1
                if "enum" in schema:
                    continue  # a list of values is bounded
                low, high = schema.get("minimum"), schema.get("maximum")
                if low is None or high is None or low < -(2**63) or high > INT64_MAX:
                    unbounded.append(where)
    assert found > 40
    assert not unbounded, unbounded


async def test_every_integer_field_refuses_values_its_column_cannot_hold(
    client: httpx.AsyncClient, api: Api
) -> None:
    spec = (await client.get("/openapi.json")).json()
    fields = []
    for path, method, schema in _write_operations(spec):
        url = await _concrete(api, path)
        for name, bounds in _integer_fields(schema):
            if "enum" in bounds:
                continue
            fields.append(f"{method} {path} {name}")
            too_big = [*OUT_OF_ID_RANGE, bounds["maximum"] + 1]
            too_small = [-(2**63) - 1, bounds["minimum"] - 1]
            for value in (*too_big, *too_small):
                response = await api.client.request(
                    method, url, headers=api.headers, json={name: value}
                )
                assert response.status_code == 422, (method, path, name, value, response.text)
                assert name in response.json()["invalid_attributes"], (path, name, value)
            if method == "PATCH":  # the largest and smallest accepted values fit the column
                for value in (bounds["maximum"], bounds["minimum"]):
                    response = await api.client.request(
                        method, url, headers=api.headers, json={name: value}
                    )
                    assert response.status_code in (200, 404, 409, 422), (path, name, value)
    for expected in (
        "POST /api/v1/sources source_group_id",
        "POST /api/v2/monitors monitor_group_id",
        "PATCH /api/v2/status-pages/{status_page_id}/resources/{resource_id} "
        "status_page_section_id",
        "POST /api/v2/incidents monitor_id",
        "POST /api/v2/incidents heartbeat_id",
    ):
        assert expected in fields, expected
    assert len(fields) > 40


async def test_a_position_at_the_integer_column_limit_is_stored(api: Api) -> None:
    page = data(await api.post("/api/v2/status-pages", {"subdomain": "limits"}), 201)
    section = await api.post(
        f"/api/v2/status-pages/{page['id']}/sections", {"name": "a", "position": INT32_MAX}
    )
    assert data(section, 201)["attributes"]["position"] == 0  # past the end appends
    response = await api.post(
        f"/api/v2/status-pages/{page['id']}/sections", {"position": INT32_MAX + 1}
    )
    assert errors(response)[1] == ["position"]


# ------------------------------------------------- values looked up before validation


UNHASHABLE: list[tuple[str, str, dict[str, Any]]] = [
    ("PATCH", "/api/v2/monitors/{monitor_id}", {}),
    ("POST", "/api/v2/monitors", {"url": "https://example.com"}),
    ("PATCH", "/api/v1/collectors/{collector_id}/targets/{target_id}", {}),
    ("POST", "/api/v1/collectors/{collector_id}/targets", {"host": "db.internal"}),
    ("PATCH", "/api/v2/status-pages/{status_page_id}/resources/{resource_id}", {}),
    ("POST", "/api/v2/status-pages/{status_page_id}/resources", {}),
    ("PATCH", "/api/v2/outgoing-webhooks/{outgoing_webhook_id}", {}),
    ("POST", "/api/v2/outgoing-webhooks", {"url": "https://example.com/h"}),
    ("PATCH", "/api/v1/sources/{source_id}", {}),
    ("POST", "/api/v1/sources", {"name": "s"}),
    ("PATCH", "/api/v1/collectors/{collector_id}", {}),
]
TABLE_KEYS = {
    "monitors": ["monitor_type"],
    "targets": ["kind"],
    "resources": ["resource_type", "widget_type", "mark_as_down_for"],
    "outgoing-webhooks": ["trigger_type"],
    "sources": ["platform"],
    "collectors": ["platform"],
}


@pytest.mark.parametrize(("method", "path", "base"), UNHASHABLE)
async def test_a_list_or_object_where_a_name_belongs_is_a_422(
    api: Api, method: str, path: str, base: dict[str, Any]
) -> None:
    url = await _concrete(api, path)
    collection = re.sub(r"/\{[^}]+\}$", "", path).rsplit("/", 1)[1]
    for name in TABLE_KEYS[collection]:
        for value in ([1], ["status"], {"a": 1}, {}):
            response = await api.client.request(
                method, url, headers=api.headers, json={**base, name: value}
            )
            assert response.status_code == 422, (path, name, value, response.text)
            assert name in response.json()["invalid_attributes"], (path, name, value)


# ---------------------------------------------------------------------------- 405 Allow


def _methods_by_path(app: FastAPI) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for route in app.routes:
        if isinstance(route, APIRoute):
            found.setdefault(route.path, set()).update(route.methods or ())
    return found


async def test_405_lists_every_method_of_the_path(app: FastAPI, api: Api) -> None:
    response = await api.client.put("/api/v1/collectors", headers=api.headers)
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"
    assert response.json() == {"errors": "Method PUT is not allowed for /api/v1/collectors."}
    checked = 0
    for path, methods in _methods_by_path(app).items():
        if path.startswith("/api/v1/heartbeat/"):
            methods = {"GET", "POST", "HEAD"}  # /{token}/fail also matches /{token}/{exit_code}
        if path.endswith("/new"):
            # The console's /x/new also matches its /x/{id}: the answer allows both routes'
            # methods (HEAD only where /x/new itself has GET).
            matched = {
                m
                for route in app.routes
                if isinstance(route, APIRoute)
                and route.path.count("/") == path.count("/")
                and route.path_regex.fullmatch(path)
                for m in route.methods or ()
            }
            methods = (matched - {"HEAD"}) | (methods & {"HEAD"})
        for method in sorted({"PUT", "DELETE", "PATCH", "POST", "TRACE"} - methods):
            response = await api.client.request(method, fill(path), headers=api.headers)
            assert response.status_code == 405, (method, path)
            assert set(response.headers["allow"].split(", ")) == methods, (method, path)
            checked += 1
    assert checked > 40


# ------------------------------------------------------------- the schema says the truth


async def test_a_body_is_documented_as_required_exactly_when_an_empty_one_is_refused(
    client: httpx.AsyncClient, api: Api
) -> None:
    spec = (await client.get("/openapi.json")).json()
    checked = 0
    for path, method, _schema in _write_operations(spec):
        required = spec["paths"][path][method.lower()]["requestBody"]["required"]
        url = await _concrete(api, path)
        response = await api.client.request(method, url, headers=api.headers)
        refused = response.status_code == 422
        assert refused == required, (method, path, required, response.status_code, response.text)
        checked += 1
    assert checked > 20


async def test_ping_routes_document_what_they_answer(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    ping = spec["paths"]["/api/v1/heartbeat/{token}/{exit_code}"]["get"]
    assert set(ping["responses"]["404"]["content"]) == {"application/json"}
    assert set(ping["responses"]["200"]["content"]) == {"text/plain"}
    (code,) = [p for p in ping["parameters"] if p["name"] == "exit_code"]
    assert code["schema"]["type"] == "integer"
    assert (code["schema"]["minimum"], code["schema"]["maximum"]) == (0, 255)
    response = await client.get("/api/v1/heartbeat/nope/1")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"


async def test_list_routes_document_page_and_per_page(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    spec = (await client.get("/openapi.json")).json()
    routes = _paged(app)
    assert len(routes) > 10
    for path in routes:
        params = {p["name"]: p for p in spec["paths"][path]["get"]["parameters"]}
        for name in ("page", "per_page"):
            assert params[name]["schema"]["type"] == "integer", (path, name)
            assert params[name]["schema"]["minimum"] == 1, (path, name)


def _nullable(prop: dict[str, Any]) -> bool:
    return any(option.get("type") == "null" for option in prop.get("anyOf", [prop]))


async def test_null_is_documented_exactly_where_it_is_accepted(
    client: httpx.AsyncClient, api: Api
) -> None:
    spec = (await client.get("/openapi.json")).json()
    wrong = []
    for path, method, schema in _write_operations(spec):
        url = await _concrete(api, path)
        for name, prop in schema["properties"].items():
            response = await api.client.request(method, url, headers=api.headers, json={name: None})
            # Refused as a value ("must not be null", "must be a valid string"), not by a rule
            # of the object's state (a postgres target needs its port: "port is required").
            refused = any(
                message.startswith(
                    (f"{name} must not be null", f"{name} must be", f"{name} cannot be changed")
                )
                for message in response.json().get("errors", [])
            )
            if refused == _nullable(prop):
                wrong.append(f"{method} {path} {name}: null {'refused' if refused else 'accepted'}")
    assert not wrong, "\n".join(wrong)
