"""The API as the tests call it: a client bound to a team token, response readers, secret markers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

# Every secret a test sends is one of these, so the suite can prove none ever comes back
# in a response or appears in a log line.
TEST_PASSWORD = "pw-Watchpost-Test-Secret-7f3a"
TEST_API_KEY = "key-Watchpost-Test-Secret-91c2"
SECRET_MARKERS = (TEST_PASSWORD, TEST_API_KEY, "Watchpost-Test-Secret")


@dataclass
class Api:
    """An HTTP client that sends one team's token."""

    client: httpx.AsyncClient
    token: str
    team_id: int
    team_name: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.client.get(path, headers=self.headers, **kwargs)

    async def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return await self.client.post(path, json=json, headers=self.headers, **kwargs)

    async def patch(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return await self.client.patch(path, json=json, headers=self.headers, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.client.delete(path, headers=self.headers, **kwargs)


def data(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    """The `data` of a response, after checking its status (the body is shown on failure)."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert isinstance(body, dict)
    result = body["data"]
    assert isinstance(result, dict)
    return result


def errors(response: httpx.Response, status: int = 422) -> tuple[list[str], list[str]]:
    """(errors, invalid_attributes) of a validation error response."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert isinstance(body["errors"], list) and isinstance(body["invalid_attributes"], list), body
    return body["errors"], body["invalid_attributes"]
