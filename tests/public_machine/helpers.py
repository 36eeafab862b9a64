"""Building status pages through the API for the public machine-readable routes' tests."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import httpx

from tests.factories.api import Api, data

PAGES = "/api/v2/status-pages"


async def new_page(api: Api, subdomain: str = "acme", **attributes: object) -> str:
    body: dict[str, object] = {"subdomain": subdomain, "company_name": "Acme Inc"}
    body.update(attributes)
    return str(data(await api.post(PAGES, body), 201)["id"])


async def new_section(api: Api, page_id: str, name: str) -> str:
    return str(data(await api.post(f"{PAGES}/{page_id}/sections", {"name": name}), 201)["id"])


async def new_resource(api: Api, page_id: str, name: str, section: str | None = None) -> str:
    body: dict[str, Any] = {"public_name": name}
    if section is not None:
        body["status_page_section_id"] = int(section)
    return str(data(await api.post(f"{PAGES}/{page_id}/resources", body), 201)["id"])


async def new_report(api: Api, page_id: str, **body: Any) -> dict[str, Any]:
    response = await api.post(f"{PAGES}/{page_id}/status-reports", body)
    assert response.status_code == 201, response.text
    found: dict[str, Any] = response.json()["data"]
    return found


async def add_update(api: Api, page_id: str, report_id: str, **body: Any) -> dict[str, Any]:
    url = f"{PAGES}/{page_id}/status-reports/{report_id}/status-updates"
    return data(await api.post(url, body), 201)


def hit(rid: str, status: str) -> dict[str, str]:
    return {"status_page_resource_id": rid, "status": status}


async def public_json(client: httpx.AsyncClient, path: str, **kwargs: Any) -> Any:
    response = await client.get(path, **kwargs)
    assert response.status_code == 200, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def parse_xml(text: bytes | str) -> ET.Element:
    """Our own answer parsed by the standard library's parser (no DTD, no entities in it:
    what any feed reader would do first)."""
    return ET.fromstring(text)  # noqa: S314 -- the server's own output, in a test
