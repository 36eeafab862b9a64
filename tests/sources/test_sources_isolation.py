"""Another team's sources and source groups are 404 on every route, and stay untouched."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import Api, data

SOURCES = "/api/v1/sources"
GROUPS = "/api/v1/source-groups"


async def snapshot(api: Api, source_id: str, group_id: str) -> tuple[Any, ...]:
    return (
        data(await api.get(f"{SOURCES}/{source_id}")),
        data(await api.get(f"{GROUPS}/{group_id}")),
        (await api.get(f"{GROUPS}/{group_id}/sources")).json()["data"],
        (await api.get(SOURCES)).json()["data"],
        (await api.get(GROUPS)).json()["data"],
    )


ROUTES = [
    ("get", "{source}", None),
    ("patch", "{source}", {"name": "stolen"}),
    ("patch", "{source}", {"source_group_id": None}),
    ("delete", "{source}", None),
    ("get", "{group}", None),
    ("get", "{group}/sources", None),
    ("patch", "{group}", {"name": "stolen"}),
    ("delete", "{group}", None),
]


@pytest.mark.parametrize(("method", "template", "body"), ROUTES)
async def test_foreign_objects_are_not_found_and_untouched(
    api: Api, other_api: Api, method: str, template: str, body: dict[str, Any] | None
) -> None:
    group = data(await other_api.post(GROUPS, {"name": "theirs"}), 201)
    source = data(
        await other_api.post(
            SOURCES, {"name": "theirs", "platform": "http", "source_group_id": int(group["id"])}
        ),
        201,
    )
    before = await snapshot(other_api, source["id"], group["id"])
    path = template.format(source=f"{SOURCES}/{source['id']}", group=f"{GROUPS}/{group['id']}")
    if method == "get":
        response = await api.get(path)
    elif method == "patch":
        response = await api.patch(path, body)
    else:
        response = await api.delete(path)
    assert response.status_code == 404, response.text
    kind, object_id = (
        ("source", source["id"]) if path.startswith(SOURCES) else ("source_group", group["id"])
    )
    assert response.json() == {
        "errors": f"Resource type {kind} with id = {object_id} was not found"
    }
    assert await snapshot(other_api, source["id"], group["id"]) == before
    assert (await api.get(SOURCES)).json()["data"] == []
    assert (await api.get(GROUPS)).json()["data"] == []


async def test_foreign_ids_with_invalid_bodies_are_still_404(api: Api, other_api: Api) -> None:
    source = data(await other_api.post(SOURCES, {"name": "theirs", "platform": "http"}), 201)
    response = await api.patch(f"{SOURCES}/{source['id']}", {"platform": "ruby", "token": "x"})
    assert response.status_code == 404


async def test_lists_do_not_mix_teams(api: Api, other_api: Api) -> None:
    mine = data(await api.post(GROUPS, {"name": "same"}), 201)
    theirs = data(await other_api.post(GROUPS, {"name": "same"}), 201)
    assert (await api.get(GROUPS)).json()["data"] == [mine]
    assert (await other_api.get(GROUPS)).json()["data"] == [theirs]
