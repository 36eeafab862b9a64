from __future__ import annotations

import httpx

from tests.factories.api import Api, data


async def test_healthz_needs_no_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


async def test_create_and_read_collector(api: Api) -> None:
    created = data(await api.post("/api/v1/collectors", {"name": "main"}), 201)
    fetched = data(await api.get(f"/api/v1/collectors/{created['id']}"))
    assert fetched == created
