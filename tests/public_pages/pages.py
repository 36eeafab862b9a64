"""Building status pages through the API for the public page tests."""

from __future__ import annotations

from typing import Any

import httpx

from tests.factories.api import Api, data
from tests.public_pages.html import Node, parse

PAGES = "/api/v2/status-pages"


async def new_page(api: Api, subdomain: str = "acme", **attributes: Any) -> str:
    body = {"subdomain": subdomain, "company_name": "Acme Corp", **attributes}
    return str(data(await api.post(PAGES, body), 201)["id"])


async def change_page(api: Api, page_id: str, **attributes: Any) -> None:
    data(await api.patch(f"{PAGES}/{page_id}", attributes))


async def new_section(api: Api, page_id: str, name: str, **extra: Any) -> int:
    body = {"name": name, **extra}
    return int(data(await api.post(f"{PAGES}/{page_id}/sections", body), 201)["id"])


async def new_resource(api: Api, page_id: str, **body: Any) -> str:
    return str(data(await api.post(f"{PAGES}/{page_id}/resources", body), 201)["id"])


async def new_monitor(api: Api, name: str = "Website") -> int:
    body = {"url": "https://example.com", "pronounceable_name": name}
    return int(data(await api.post("/api/v2/monitors", body), 201)["id"])


async def new_report(api: Api, page_id: str, **body: Any) -> str:
    return str(data(await api.post(f"{PAGES}/{page_id}/status-reports", body), 201)["id"])


async def visit(
    client: httpx.AsyncClient, path: str, status: int = 200, **kwargs: Any
) -> tuple[httpx.Response, Node]:
    """A visitor's GET (no token): the response and its parsed HTML."""
    response = await client.get(path, **kwargs)
    assert response.status_code == status, (response.status_code, response.text[:2000])
    return response, parse(response.text)
