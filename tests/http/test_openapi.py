"""/openapi.json documents every route with its request body, success and error responses."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.objects import api_endpoints
from watchpost.collectors.target_kinds import KIND_RULES
from watchpost.errors import UNAUTHORIZED_MESSAGE


async def test_every_route_is_documented(app: FastAPI, client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    misses = []
    for endpoint in api_endpoints(app):
        operation = spec["paths"].get(endpoint.path, {}).get(endpoint.method.lower())
        label = f"{endpoint.method} {endpoint.path}"
        if operation is None:
            misses.append(f"{label}: missing")
            continue
        responses = operation.get("responses", {})
        successes = [code for code in responses if code.startswith("2")]
        if not successes:
            misses.append(f"{label}: no success response")
        elif successes != ["204"] and not any(
            "application/json" in responses[code].get("content", {}) for code in successes
        ):
            misses.append(f"{label}: success response has no JSON schema")
        if "401" not in responses:
            misses.append(f"{label}: no 401")
        if "{" in endpoint.path and "404" not in responses:
            misses.append(f"{label}: no 404")
        if endpoint.method in ("POST", "PATCH"):
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if not body or not body.get("schema"):
                misses.append(f"{label}: no request body schema")
            if "422" not in responses:
                misses.append(f"{label}: no 422")
        if "422" in responses:
            schema = responses["422"]["content"]["application/json"]["schema"]
            if "$ref" not in schema and "properties" not in schema:
                misses.append(f"{label}: 422 without a schema")
    assert not misses, "\n".join(misses)


async def test_target_create_describes_every_kind(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    operation = spec["paths"]["/api/v1/collectors/{collector_id}/targets"]["post"]
    description = operation["description"]
    for kind, rule in KIND_RULES.items():
        row = next(line for line in description.splitlines() if line.startswith(f"| {kind} |"))
        for name in (*rule.required, *rule.optional):
            assert name in row, (kind, name)
    properties = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]
    assert {"kind", "host", "port", "password", "api_key", "enabled"} <= set(properties)


async def test_openapi_is_public(client: httpx.AsyncClient) -> None:
    assert (await client.get("/openapi.json")).status_code == 200


TRUNCATED_BODIES = {
    ("POST", "/api/v1/heartbeat/{token}"),
    ("POST", "/api/v1/heartbeat/{token}/fail"),
    ("POST", "/api/v1/heartbeat/{token}/{exit_code}"),
}
"""Pings keep the first 10 KiB of their body (the ping log) and never answer 413."""


async def test_every_route_taking_a_body_documents_its_413(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    missing, limits = [], {}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            key = (method.upper(), path)
            if "requestBody" not in operation or key in TRUNCATED_BODIES:
                continue
            found = operation["responses"].get("413")
            if found is None:
                missing.append(key)
            else:
                limits[key] = found["description"]
    assert not missing, missing
    assert len(limits) > 60
    assert limits[("POST", "/api/v2/monitors")] == "Request body larger than 1 MiB"
    assert limits[("PATCH", "/api/v2/monitors/{monitor_id}")] == "Request body larger than 1 MiB"
    assert limits[("PUT", "/api/v2/on-calls/{id}/events")] == "Request body larger than 1 MiB"
    assert "20971520 bytes" in limits[("POST", "/")]


async def test_routes_needing_a_token_name_their_security_scheme(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    spec = (await client.get("/openapi.json")).json()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["apiToken"]["type"] == "http" and schemes["apiToken"]["scheme"] == "bearer"
    assert schemes["sourceToken"]["type"] == "http" and schemes["sourceToken"]["scheme"] == "bearer"
    needing = {(endpoint.method.lower(), endpoint.path) for endpoint in api_endpoints(app)}
    assert len(needing) > 150
    wrong = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            security = operation.get("security")
            expected: list[dict[str, list[str]]] | None
            if (method, path) in needing:
                expected = [{"apiToken": []}]
            elif method == "post" and path in ("/", "/v1/logs", "/v1/metrics"):
                # log ingestion: a source token (GET / is the console's page: no token)
                expected = [{"sourceToken": []}]
            elif path.startswith("/api/probe/v1/"):  # probe agents: a probe token
                expected = [{"probeToken": []}]
            else:  # pings, incoming webhooks, status pages' forms and links: no token
                expected = None
            if security != expected:
                wrong.append((method, path, security))
    assert not wrong, wrong


async def test_the_token_is_read_as_the_scheme_says(api: Api, client: httpx.AsyncClient) -> None:
    for header in (f"Bearer {api.token}", f"bearer  {api.token} "):
        answer = await client.get("/api/v2/monitors", headers={"Authorization": header})
        assert answer.status_code == 200, answer.text
    for header in (f"Basic {api.token}", "Bearer", "Bearer ", api.token, ""):
        refused = await client.get("/api/v2/monitors", headers={"Authorization": header})
        assert refused.status_code == 401, header
        assert refused.json() == {"errors": UNAUTHORIZED_MESSAGE}, header
