from __future__ import annotations

from tests.factories.api import Api, data, errors
from tests.factories.monitors import GROUPS, MONITORS, create_monitor, create_monitor_group
from watchpost.clock import FrozenClock, isoformat_ms


async def test_create_with_defaults(api: Api, clock: FrozenClock) -> None:
    created = data(await api.post(GROUPS, {"name": "Production"}), 201)
    assert created["type"] == "monitor_group"
    assert created["attributes"] == {
        "name": "Production",
        "sort_index": 0,
        "paused": False,
        "team_name": "acme",
        "created_at": isoformat_ms(clock.now()),
        "updated_at": isoformat_ms(clock.now()),
    }
    assert data(await api.get(f"{GROUPS}/{created['id']}")) == created


async def test_create_validation(api: Api) -> None:
    _, fields = errors(await api.post(GROUPS, {}))
    assert fields == ["name"]
    _, fields = errors(await api.post(GROUPS, {"name": " ", "sort_index": "1", "paused": "no"}))
    assert set(fields) == {"name", "sort_index", "paused"}


async def test_update(api: Api, clock: FrozenClock) -> None:
    created = await create_monitor_group(api, sort_index=3)
    clock.advance(10)
    updated = data(await api.patch(f"{GROUPS}/{created['id']}", {"name": "Staging"}))
    assert updated["attributes"]["name"] == "Staging"
    assert updated["attributes"]["sort_index"] == 3
    assert updated["attributes"]["updated_at"] == isoformat_ms(clock.now())
    _, fields = errors(
        await api.patch(f"{GROUPS}/{created['id']}", {"name": None, "sort_index": None})
    )
    assert set(fields) == {"name", "sort_index"}


async def test_pausing_a_group_pauses_its_monitors(api: Api, clock: FrozenClock) -> None:
    group = await create_monitor_group(api)
    gid = int(group["id"])
    inside = await create_monitor(api, monitor_group_id=gid)
    outside = await create_monitor(api)
    clock.advance(5)
    paused = data(await api.patch(f"{GROUPS}/{group['id']}", {"paused": True}))
    assert paused["attributes"]["paused"] is True
    member = data(await api.get(f"{MONITORS}/{inside['id']}"))["attributes"]
    assert (member["paused"], member["status"]) == (True, "paused")
    assert member["paused_at"] == isoformat_ms(clock.now())
    assert data(await api.get(f"{MONITORS}/{outside['id']}"))["attributes"]["paused"] is False
    data(await api.patch(f"{GROUPS}/{group['id']}", {"paused": False}))
    member = data(await api.get(f"{MONITORS}/{inside['id']}"))["attributes"]
    assert (member["paused"], member["status"], member["paused_at"]) == (False, "pending", None)


async def test_group_monitors_are_listed_and_paginated(api: Api) -> None:
    group = await create_monitor_group(api)
    other = await create_monitor_group(api, name="Other")
    ids = [(await create_monitor(api, monitor_group_id=int(group["id"])))["id"] for _ in range(3)]
    await create_monitor(api, monitor_group_id=int(other["id"]))
    await create_monitor(api)
    response = await api.get(f"{GROUPS}/{group['id']}/monitors", params={"per_page": 2})
    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body["data"]] == ids[:2]
    assert body["pagination"]["next"].endswith(
        f"/api/v2/monitor-groups/{group['id']}/monitors?page=2&per_page=2"
    )
    assert "page=2" in body["pagination"]["last"]
    second = (
        await api.get(f"{GROUPS}/{group['id']}/monitors", params={"page": 2, "per_page": 2})
    ).json()
    assert [item["id"] for item in second["data"]] == ids[2:]
    assert second["pagination"]["next"] is None


async def test_deleting_a_group_ungroups_its_monitors(api: Api, clock: FrozenClock) -> None:
    group = await create_monitor_group(api)
    member = await create_monitor(api, monitor_group_id=int(group["id"]))
    clock.advance(30)
    response = await api.delete(f"{GROUPS}/{group['id']}")
    assert response.status_code == 204
    assert (await api.get(f"{GROUPS}/{group['id']}")).status_code == 404
    kept = data(await api.get(f"{MONITORS}/{member['id']}"))["attributes"]
    assert kept["monitor_group_id"] is None
    assert kept["updated_at"] == isoformat_ms(clock.now())


async def test_list_groups(api: Api, other_api: Api) -> None:
    first = await create_monitor_group(api, name="A")
    second = await create_monitor_group(api, name="B")
    await create_monitor_group(other_api, name="C")
    body = (await api.get(GROUPS)).json()
    assert [item["id"] for item in body["data"]] == [first["id"], second["id"]]
    assert body["pagination"]["prev"] is None


async def test_groups_are_isolated_between_teams(api: Api, other_api: Api) -> None:
    theirs = await create_monitor_group(other_api)
    member = await create_monitor(other_api, monitor_group_id=int(theirs["id"]))
    path = f"{GROUPS}/{theirs['id']}"
    for response in (
        await api.get(path),
        await api.get(f"{path}/monitors"),
        await api.patch(path, {"name": "Mine", "paused": True}),
        await api.delete(path),
    ):
        assert response.status_code == 404
        assert response.json() == {
            "errors": f"Resource type monitor_group with id = {theirs['id']} was not found"
        }
    assert data(await other_api.get(path)) == theirs
    assert data(await other_api.get(f"{MONITORS}/{member['id']}")) == member


async def test_malformed_group_id_is_404(api: Api) -> None:
    assert (await api.get(f"{GROUPS}/x1")).status_code == 404
    assert (await api.get(f"{GROUPS}/x1/monitors")).status_code == 404
