from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import Api, data, errors
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.heartbeats.schemas import GROUP_READ_ONLY

GROUPS = "/api/v2/heartbeat-groups"
HEARTBEATS = "/api/v2/heartbeats"


async def _group(api: Api, **fields: Any) -> dict[str, Any]:
    return data(await api.post(GROUPS, {"name": "jobs", **fields}), 201)


async def _heartbeat(api: Api, group: dict[str, Any] | None, **fields: Any) -> dict[str, Any]:
    body = {"name": "job", **fields}
    if group is not None:
        body["heartbeat_group_id"] = int(group["id"])
    return data(await api.post(HEARTBEATS, body), 201)


async def test_minimal_create_has_full_shape(api: Api, clock: FrozenClock) -> None:
    created = await _group(api)
    now = isoformat_ms(clock.now())
    assert created["type"] == "heartbeat_group"
    assert created["attributes"] == {
        "name": "jobs",
        "sort_index": 0,
        "paused": False,
        "team_name": "acme",
        "created_at": now,
        "updated_at": now,
    }
    assert data(await api.get(f"{GROUPS}/{created['id']}")) == created


async def test_create_with_fields_and_patch(api: Api, clock: FrozenClock) -> None:
    created = await _group(api, sort_index=3, paused=True)
    assert created["attributes"]["sort_index"] == 3
    assert created["attributes"]["paused"] is True
    clock.advance(10)
    updated = data(await api.patch(f"{GROUPS}/{created['id']}", {"name": "cron", "sort_index": -1}))
    assert updated["attributes"]["name"] == "cron"
    assert updated["attributes"]["sort_index"] == -1
    assert updated["attributes"]["paused"] is True
    assert updated["attributes"]["updated_at"] == isoformat_ms(clock.now())


async def test_validation(api: Api) -> None:
    _, fields = errors(await api.post(GROUPS, {}))
    assert fields == ["name"]
    _, fields = errors(await api.post(GROUPS, {"name": " ", "sort_index": "1", "paused": 1}))
    assert set(fields) == {"name", "sort_index", "paused"}
    created = await _group(api)
    for field in ("name", "sort_index", "paused"):
        messages, fields = errors(await api.patch(f"{GROUPS}/{created['id']}", {field: None}))
        assert messages == [f"{field} must not be null"]


@pytest.mark.parametrize("field", sorted(GROUP_READ_ONLY))
async def test_read_only_fields(api: Api, field: str) -> None:
    messages, fields = errors(await api.post(GROUPS, {"name": "g", field: "x"}))
    assert (messages, fields) == ([f"{field} is read-only"], [field])


async def test_group_heartbeats_are_listed_and_paginated(api: Api) -> None:
    group, other = await _group(api), await _group(api, name="other")
    ids = [(await _heartbeat(api, group, name=f"hb {i}"))["id"] for i in range(3)]
    await _heartbeat(api, other)
    await _heartbeat(api, None)
    body = (await api.get(f"{GROUPS}/{group['id']}/heartbeats", params={"per_page": 2})).json()
    assert [item["id"] for item in body["data"]] == ids[:2]
    assert all(item["type"] == "heartbeat" for item in body["data"])
    assert body["pagination"]["last"].endswith(
        f"/api/v2/heartbeat-groups/{group['id']}/heartbeats?page=2&per_page=2"
    )
    page2 = (
        await api.get(f"{GROUPS}/{group['id']}/heartbeats", params={"per_page": 2, "page": 2})
    ).json()
    assert [item["id"] for item in page2["data"]] == ids[2:]


async def test_list_groups_paginated(api: Api) -> None:
    ids = [(await _group(api, name=f"g{i}"))["id"] for i in range(3)]
    body = (await api.get(GROUPS, params={"per_page": 2, "page": 2})).json()
    assert [item["id"] for item in body["data"]] == ids[2:]
    assert body["pagination"]["next"] is None
    assert (
        body["pagination"]["prev"] == "http://testserver/api/v2/heartbeat-groups?page=1&per_page=2"
    )


async def test_pausing_the_group_pauses_its_heartbeats(api: Api, clock: FrozenClock) -> None:
    group = await _group(api)
    inside = await _heartbeat(api, group)
    already = await _heartbeat(api, group, paused=True)
    outside = await _heartbeat(api, None)
    clock.advance(60)
    paused = data(await api.patch(f"{GROUPS}/{group['id']}", {"paused": True}))
    assert paused["attributes"]["paused"] is True
    now = isoformat_ms(clock.now())
    first = data(await api.get(f"{HEARTBEATS}/{inside['id']}"))["attributes"]
    assert (first["paused"], first["status"], first["paused_at"]) == (True, "paused", now)
    second = data(await api.get(f"{HEARTBEATS}/{already['id']}"))["attributes"]
    assert second["paused_at"] == already["attributes"]["paused_at"]
    assert data(await api.get(f"{HEARTBEATS}/{outside['id']}")) == outside

    clock.advance(60)
    data(await api.patch(f"{GROUPS}/{group['id']}", {"paused": False}))
    for heartbeat in (inside, already):
        attributes = data(await api.get(f"{HEARTBEATS}/{heartbeat['id']}"))["attributes"]
        assert (attributes["paused"], attributes["status"]) == (False, "pending")


async def test_a_heartbeat_joining_a_paused_group_keeps_its_state(api: Api) -> None:
    group = await _group(api, paused=True)
    joined = await _heartbeat(api, group)
    assert joined["attributes"]["paused"] is False


async def test_delete_ungroups_its_heartbeats(api: Api, clock: FrozenClock) -> None:
    group = await _group(api)
    member = await _heartbeat(api, group)
    clock.advance(5)
    assert (await api.delete(f"{GROUPS}/{group['id']}")).status_code == 204
    assert (await api.get(f"{GROUPS}/{group['id']}")).status_code == 404
    kept = data(await api.get(f"{HEARTBEATS}/{member['id']}"))["attributes"]
    assert kept["heartbeat_group_id"] is None
    assert kept["updated_at"] == isoformat_ms(clock.now())
    assert (await api.delete(f"{GROUPS}/{group['id']}")).status_code == 404


async def test_other_team_cannot_touch_a_group(api: Api, other_api: Api) -> None:
    group = await _group(api)
    member = await _heartbeat(api, group)
    path = f"{GROUPS}/{group['id']}"
    assert (await other_api.get(GROUPS)).json()["data"] == []
    for response in (
        await other_api.get(path),
        await other_api.get(f"{path}/heartbeats"),
        await other_api.patch(path, {"name": "theirs", "paused": True}),
        await other_api.delete(path),
    ):
        assert response.status_code == 404, response.text
        assert response.json() == {
            "errors": f"Resource type heartbeat_group with id = {group['id']} was not found"
        }
    assert data(await api.get(path)) == group
    assert data(await api.get(f"{HEARTBEATS}/{member['id']}")) == member


async def test_unknown_group_ids_are_404(api: Api) -> None:
    for path in (f"{GROUPS}/999", f"{GROUPS}/x1"):
        assert (await api.get(path)).status_code == 404
        assert (await api.get(f"{path}/heartbeats")).status_code == 404
        assert (await api.patch(path, {"name": "n"})).status_code == 404
        assert (await api.delete(path)).status_code == 404
