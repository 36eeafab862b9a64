"""Source groups: CRUD, name uniqueness, their sources, and ungrouping on delete."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import Api, data, errors
from watchpost.clock import FrozenClock

GROUPS = "/api/v1/source-groups"
SOURCES = "/api/v1/sources"


async def create_group(api: Api, name: str = "prod", **fields: Any) -> dict[str, Any]:
    return data(await api.post(GROUPS, {"name": name, **fields}), 201)


async def create_source(api: Api, name: str, group: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "platform": "http"}
    if group is not None:
        body["source_group_id"] = int(group["id"])
    return data(await api.post(SOURCES, body), 201)


async def test_create_minimal_returns_the_full_shape(api: Api) -> None:
    group = await create_group(api)
    assert group["type"] == "source_group"
    assert group["attributes"] == {
        "name": "prod",
        "sort_index": 0,
        "team_id": api.team_id,
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
    }
    assert data(await api.get(f"{GROUPS}/{group['id']}")) == group


async def test_create_with_sort_index(api: Api) -> None:
    assert (await create_group(api, sort_index=-3))["attributes"]["sort_index"] == -3


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "  "}, "name"),
        ({"name": None}, "name"),
        ({"name": 1}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"name": "g", "sort_index": "1"}, "sort_index"),
        ({"name": "g", "sort_index": 1.5}, "sort_index"),
        ({"name": "g", "sort_index": None}, "sort_index"),
        ({"name": "g", "sort_index": 2**31}, "sort_index"),
        ({"name": "g", "team_id": 1}, "team_id"),
        ({"name": "g", "colour": "red"}, "colour"),
    ],
)
async def test_create_validation(api: Api, body: dict[str, Any], field: str) -> None:
    assert errors(await api.post(GROUPS, body))[1] == [field]
    assert (await api.get(GROUPS)).json()["data"] == []


async def test_names_are_unique_within_a_team(api: Api, other_api: Api) -> None:
    await create_group(api, "prod")
    messages, invalid = errors(await api.post(GROUPS, {"name": "prod"}))
    assert invalid == ["name"]
    assert "already used" in messages[0]
    assert errors(await api.post(GROUPS, {"name": " prod "}))[1] == ["name"]
    await create_group(other_api, "prod")  # another team may use the name


async def test_patch(api: Api, clock: FrozenClock) -> None:
    group = await create_group(api)
    clock.advance(5)
    updated = data(await api.patch(f"{GROUPS}/{group['id']}", {"name": "live", "sort_index": 4}))
    assert updated["attributes"] == {
        **group["attributes"],
        "name": "live",
        "sort_index": 4,
        "updated_at": "2026-01-01T00:00:05.000Z",
    }
    assert data(await api.get(f"{GROUPS}/{group['id']}")) == updated


async def test_patch_to_its_own_name_is_fine(api: Api) -> None:
    group = await create_group(api, "prod")
    assert data(await api.patch(f"{GROUPS}/{group['id']}", {"name": "prod"}))


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": None}, "name"),
        ({"name": ""}, "name"),
        ({"name": "taken"}, "name"),
        ({"sort_index": None}, "sort_index"),
        ({"sort_index": "2"}, "sort_index"),
        ({"created_at": "2020-01-01T00:00:00Z"}, "created_at"),
        ({"unknown": 1}, "unknown"),
    ],
)
async def test_patch_validation(api: Api, body: dict[str, Any], field: str) -> None:
    await create_group(api, "taken")
    group = await create_group(api, "mine")
    assert errors(await api.patch(f"{GROUPS}/{group['id']}", body))[1] == [field]
    assert data(await api.get(f"{GROUPS}/{group['id']}")) == group


async def test_list_groups_paginated_in_id_order(api: Api) -> None:
    created = [await create_group(api, f"g{i}") for i in range(3)]
    first = (await api.get(GROUPS, params={"per_page": 2})).json()
    second = (await api.get(GROUPS, params={"per_page": 2, "page": 2})).json()
    assert first["data"] + second["data"] == created
    assert first["pagination"]["next"].endswith("page=2&per_page=2")
    assert second["pagination"]["next"] is None


async def test_group_sources_lists_only_its_sources(api: Api) -> None:
    group = await create_group(api, "a")
    other = await create_group(api, "b")
    inside = [await create_source(api, f"in{i}", group) for i in range(3)]
    await create_source(api, "elsewhere", other)
    await create_source(api, "loose", None)
    path = f"{GROUPS}/{group['id']}/sources"
    body = (await api.get(path, params={"per_page": 2})).json()
    assert body["data"] == inside[:2]
    assert body["pagination"]["last"].endswith("page=2&per_page=2")
    assert (await api.get(path, params={"page": 2, "per_page": 2})).json()["data"] == inside[2:]


async def test_delete_group_ungroups_its_sources(api: Api, clock: FrozenClock) -> None:
    group = await create_group(api, "a")
    other = await create_group(api, "b")
    grouped = await create_source(api, "grouped", group)
    elsewhere = await create_source(api, "elsewhere", other)
    clock.advance(10)
    response = await api.delete(f"{GROUPS}/{group['id']}")
    assert response.status_code == 204 and response.content == b""
    assert (await api.get(f"{GROUPS}/{group['id']}")).status_code == 404
    assert (await api.get(f"{GROUPS}/{group['id']}/sources")).status_code == 404
    after = data(await api.get(f"{SOURCES}/{grouped['id']}"))
    assert after["attributes"] == {
        **grouped["attributes"],
        "source_group_id": None,
        "updated_at": "2026-01-01T00:00:10.000Z",
    }
    assert data(await api.get(f"{SOURCES}/{elsewhere['id']}")) == elsewhere
    assert (await api.delete(f"{GROUPS}/{group['id']}")).status_code == 404


async def test_deleted_group_name_can_be_reused(api: Api) -> None:
    group = await create_group(api, "a")
    assert (await api.delete(f"{GROUPS}/{group['id']}")).status_code == 204
    await create_group(api, "a")


async def test_unknown_group_ids_are_404(api: Api) -> None:
    for raw in ("999", "abc"):
        for response in (
            await api.get(f"{GROUPS}/{raw}"),
            await api.get(f"{GROUPS}/{raw}/sources"),
            await api.patch(f"{GROUPS}/{raw}", {"name": "x"}),
            await api.delete(f"{GROUPS}/{raw}"),
        ):
            assert response.status_code == 404, response.text
            assert response.json() == {
                "errors": f"Resource type source_group with id = {raw} was not found"
            }
