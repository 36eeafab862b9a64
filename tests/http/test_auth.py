"""Every non-public route answers 401 with one body, whatever is wrong with the token."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.objects import PUBLIC_PATHS, api_endpoints, fill
from watchpost.collectors.models import Collector
from watchpost.errors import UNAUTHORIZED_MESSAGE
from watchpost.teams.service import create_token, revoke_token

EXPECTED = {"errors": UNAUTHORIZED_MESSAGE}


def bad_headers(unknown: str, revoked: str) -> dict[str, dict[str, str]]:
    return {
        "no header": {},
        "empty": {"Authorization": ""},
        "scheme only": {"Authorization": "Bearer"},
        "scheme and space": {"Authorization": "Bearer "},
        "basic": {"Authorization": "Basic x"},
        "basic with a real token": {"Authorization": f"Basic {unknown}"},
        "no scheme": {"Authorization": unknown},
        "too long": {"Authorization": "Bearer " + "a" * 600},
        "unknown token": {"Authorization": f"Bearer {unknown}"},
        "revoked token": {"Authorization": f"Bearer {revoked}"},
    }


async def revoked_token(app: FastAPI, team: str) -> str:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        token = await create_token(session, team_name=team, now=ctx.clock.now())
        await revoke_token(session, prefix=token, now=ctx.clock.now())
    return token


async def test_every_api_route_needs_a_valid_token(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    endpoints = list(api_endpoints(app))
    assert any(e.path == "/api/v1/collectors/{collector_id}" for e in endpoints)
    # The object exists, so a 401 cannot be a 404 in disguise.
    async with app.state.ctx.db.read_sessions() as session:
        assert await session.get(Collector, 1) is None
    await api.post("/api/v1/collectors", {"name": "exists"})
    headers = bad_headers(api.token[:-4] + "AAAA", await revoked_token(app, "acme"))
    misses = []
    for endpoint in endpoints:
        url = fill(endpoint.path)
        for label, header in headers.items():
            for body in (None, b"{not json", b'{"name": "x"}'):
                response = await client.request(
                    endpoint.method,
                    url,
                    headers={**header, "Content-Type": "application/json"},
                    content=body,
                )
                if response.status_code != 401 or response.json() != EXPECTED:
                    misses.append(f"{endpoint.method} {url} [{label}]: {response.status_code}")
                elif response.headers.get("www-authenticate") != "Bearer":
                    misses.append(f"{endpoint.method} {url} [{label}]: no WWW-Authenticate")
    assert not misses, "\n".join(misses)
    # nothing was written by the rejected requests
    listed = (await api.get("/api/v1/collectors")).json()["data"]
    assert [item["attributes"]["name"] for item in listed] == ["exists"]


async def test_a_valid_token_passes(api: Api) -> None:
    assert (await api.get("/api/v1/collectors")).status_code == 200


async def test_revoking_a_token_locks_it_out(app: FastAPI, api: Api) -> None:
    assert (await api.get("/api/v1/collectors")).status_code == 200
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        await revoke_token(session, prefix=api.token[:12], now=ctx.clock.now())
    response = await api.get("/api/v1/collectors")
    assert (response.status_code, response.json()) == (401, EXPECTED)


async def test_public_routes_need_no_token(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok", "database": "ok"}
    assert (await client.get("/openapi.json")).status_code == 200
    assert "/healthz" in PUBLIC_PATHS
