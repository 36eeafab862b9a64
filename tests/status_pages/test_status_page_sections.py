from __future__ import annotations

from typing import Any

from tests.factories.api import Api, data, errors

PAGES = "/api/v2/status-pages"


async def new_page(api: Api, subdomain: str = "acme") -> str:
    return str(data(await api.post(PAGES, {"subdomain": subdomain}), 201)["id"])


async def add(api: Api, page_id: str, **body: Any) -> dict[str, Any]:
    return data(await api.post(f"{PAGES}/{page_id}/sections", body), 201)


async def names(api: Api, page_id: str) -> list[str]:
    items = (await api.get(f"{PAGES}/{page_id}/sections")).json()["data"]
    assert [i["attributes"]["position"] for i in items] == list(range(len(items)))
    return [i["attributes"]["name"] for i in items]


async def test_create_defaults_and_fields(api: Api) -> None:
    page_id = await new_page(api)
    created = await add(api, page_id)
    assert created["type"] == "status_page_section"
    assert created["attributes"] == {
        "name": "",
        "position": 0,
        "fixed_position": False,
        "status_page_id": int(page_id),
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
    }
    assert data(await api.get(f"{PAGES}/{page_id}/sections/{created['id']}")) == created


async def test_append_insert_and_fixed_positions(api: Api) -> None:
    page_id = await new_page(api)
    await add(api, page_id, name="a")
    await add(api, page_id, name="f", fixed_position=True)
    await add(api, page_id, name="b")
    assert await names(api, page_id) == ["a", "f", "b"]
    await add(api, page_id, name="x", position=0)
    assert await names(api, page_id) == ["x", "f", "a", "b"]
    # an insert at the fixed section's number pushes it one further (the hosted API's rule)
    await add(api, page_id, name="y", position=1)
    assert await names(api, page_id) == ["x", "y", "f", "a", "b"]
    await add(api, page_id, name="end", position=50)
    assert await names(api, page_id) == ["x", "y", "f", "a", "b", "end"]
    # a fixed section keeps the number it was given, past the end too
    far = await add(api, page_id, name="far", position=70, fixed_position=True)
    assert far["attributes"]["position"] == 70


async def test_patch_moves_and_renames(api: Api) -> None:
    page_id = await new_page(api)
    ids = [(await add(api, page_id, name=n))["id"] for n in "abc"]
    path = f"{PAGES}/{page_id}/sections/{ids[2]}"
    moved = data(await api.patch(path, {"position": 0, "name": "C"}))
    assert moved["attributes"]["position"] == 0 and moved["attributes"]["name"] == "C"
    assert await names(api, page_id) == ["C", "a", "b"]
    _, fields = errors(await api.patch(path, {"name": None, "position": None}))
    assert set(fields) == {"name", "position"}


async def test_delete_takes_the_sections_resources_and_keeps_positions(api: Api) -> None:
    page_id = await new_page(api)
    ids = [(await add(api, page_id, name=n))["id"] for n in "abc"]
    resource = data(
        await api.post(f"{PAGES}/{page_id}/resources", {"status_page_section_id": int(ids[0])}),
        201,
    )
    kept = data(
        await api.post(f"{PAGES}/{page_id}/resources", {"status_page_section_id": int(ids[2])}),
        201,
    )
    assert (await api.delete(f"{PAGES}/{page_id}/sections/{ids[1]}")).status_code == 204
    assert await names(api, page_id) == ["a", "c"]
    assert (await api.delete(f"{PAGES}/{page_id}/sections/{ids[0]}")).status_code == 204
    assert await names(api, page_id) == ["c"]
    # its resource went with it; `terraform destroy` then gets a 404 for it, which it takes
    # as done
    assert (await api.get(f"{PAGES}/{page_id}/resources/{resource['id']}")).status_code == 404
    assert (await api.delete(f"{PAGES}/{page_id}/resources/{resource['id']}")).status_code == 404
    assert (await api.get(f"{PAGES}/{page_id}/resources/{kept['id']}")).status_code == 200


async def test_sections_isolated_and_404s(api: Api, other_api: Api) -> None:
    page_id = await new_page(api)
    created = await add(api, page_id, name="a")
    base = f"{PAGES}/{page_id}/sections"
    path = f"{base}/{created['id']}"
    for response in (
        await other_api.get(base),
        await other_api.post(base, {}),
        await other_api.get(path),
        await other_api.patch(path, {"name": "x"}),
        await other_api.delete(path),
        await api.get(f"{base}/x"),
        await api.get(f"{PAGES}/999/sections"),
    ):
        assert response.status_code == 404
    assert data(await api.get(path)) == created
    other_page = await new_page(api, "two")
    assert (await api.get(f"{PAGES}/{other_page}/sections/{created['id']}")).status_code == 404


async def test_section_pagination(api: Api) -> None:
    page_id = await new_page(api)
    for name in "abc":
        await add(api, page_id, name=name)
    body = (await api.get(f"{PAGES}/{page_id}/sections", params={"per_page": 2, "page": 2})).json()
    assert [i["attributes"]["name"] for i in body["data"]] == ["c"]
    assert body["pagination"]["next"] is None
