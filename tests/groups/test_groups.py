"""Monitor, heartbeat and source groups: one set of tests, run for every kind of group.

What a kind does differently (pausing, unique names, team attribute) comes from its row of
the kinds table; the tests of those differences run for the kinds that have them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import count
from typing import Any

import pytest

from tests.factories.api import Api, data, errors
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.groups.group_kinds import (
    GROUP_KINDS,
    HEARTBEAT_GROUPS,
    MONITOR_GROUPS,
    SOURCE_GROUPS,
    GroupKind,
)
from watchpost.groups.schemas import schemas_of

_names = count()


@dataclass(frozen=True)
class Case:
    kind: GroupKind
    members_url: str
    member: dict[str, Any]
    """A minimal valid member (its name made unique per member)."""

    @property
    def url(self) -> str:
        return self.kind.prefix

    @property
    def key(self) -> str:
        return self.kind.member_key.key

    @property
    def writable(self) -> list[str]:
        """Stored fields (team_name is checked, not stored: tests/compat)."""
        return [name for name in schemas_of(self.kind).update.model_fields if name != "team_name"]

    def expected(self, api: Api, name: str, now: str, **changed: Any) -> dict[str, Any]:
        """A new group's attributes, as created with defaults."""
        attributes: dict[str, Any] = {"name": name, "sort_index": 0}
        if self.kind.pause_member is not None:
            attributes["paused"] = False
        team = {"team_name": "acme", "team_id": api.team_id}
        attributes[self.kind.team_attribute] = team[self.kind.team_attribute]
        return {**attributes, "created_at": now, "updated_at": now, **changed}


CASES = {
    "monitor": Case(
        MONITOR_GROUPS, "/api/v2/monitors", {"monitor_type": "status", "url": "https://e.com"}
    ),
    "heartbeat": Case(HEARTBEAT_GROUPS, "/api/v2/heartbeats", {"name": "job"}),
    "source": Case(SOURCE_GROUPS, "/api/v1/sources", {"name": "logs", "platform": "http"}),
}
assert {case.kind for case in CASES.values()} == set(GROUP_KINDS)
PAUSABLE = [name for name, case in CASES.items() if case.kind.pause_member is not None]
UNIQUE_NAMES = [name for name, case in CASES.items() if case.kind.unique_names]


@pytest.fixture(params=list(CASES))
def case(request: pytest.FixtureRequest) -> Case:
    return CASES[request.param]


def only(names: list[str]) -> pytest.MarkDecorator:
    """Run the test for these kinds only."""
    return pytest.mark.parametrize("case", [CASES[name] for name in names], ids=names)


async def new_group(api: Api, case: Case, name: str = "prod", **fields: Any) -> dict[str, Any]:
    return data(await api.post(case.url, {"name": name, **fields}), 201)


async def new_member(
    api: Api, case: Case, group: dict[str, Any] | None, **fields: Any
) -> dict[str, Any]:
    body = {**case.member, **fields}
    if "name" in body:
        body["name"] = f"{body['name']} {next(_names)}"
    if group is not None:
        body[case.key] = int(group["id"])
    return data(await api.post(case.members_url, body), 201)


# ---------------------------------------------------------------------------- create


async def test_minimal_create_has_full_shape(api: Api, case: Case, clock: FrozenClock) -> None:
    created = await new_group(api, case)
    assert created["type"] == case.kind.api_type
    assert created["attributes"] == case.expected(api, "prod", isoformat_ms(clock.now()))
    assert data(await api.get(f"{case.url}/{created['id']}")) == created


async def test_create_with_sort_index(api: Api, case: Case) -> None:
    assert (await new_group(api, case, sort_index=-3))["attributes"]["sort_index"] == -3


async def test_create_validation(api: Api, case: Case) -> None:
    _, fields = errors(await api.post(case.url, {}))
    assert fields == ["name"]
    wrong = {"name": " ", "sort_index": "1", "paused": "no", "team_name": 1}
    _, fields = errors(await api.post(case.url, {k: wrong[k] for k in case.writable}))
    assert set(fields) == set(case.writable)


async def test_create_refuses(api: Api, case: Case) -> None:
    team = case.kind.team_attribute  # read-only
    for body, field in [
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
        ({"name": "g", team: 1}, team),
        ({"name": "g", "colour": "red"}, "colour"),
    ]:
        assert errors(await api.post(case.url, body))[1] == [field], body
    assert (await api.get(case.url)).json()["data"] == []


async def test_read_only_fields(api: Api, case: Case) -> None:
    for field in sorted(schemas_of(case.kind).read_only):
        messages, fields = errors(await api.post(case.url, {"name": "g", field: "x"}))
        assert (messages, fields) == ([f"{field} is read-only"], [field])


@only(PAUSABLE)
async def test_create_paused(api: Api, case: Case) -> None:
    created = await new_group(api, case, sort_index=3, paused=True)
    assert created["attributes"]["sort_index"] == 3
    assert created["attributes"]["paused"] is True


# ---------------------------------------------------------------------------- update


async def test_patch(api: Api, case: Case, clock: FrozenClock) -> None:
    group = await new_group(api, case, sort_index=3)
    clock.advance(10)
    path = f"{case.url}/{group['id']}"
    renamed = data(await api.patch(path, {"name": "live"}))
    now = isoformat_ms(clock.now())
    assert renamed["attributes"] == {**group["attributes"], "name": "live", "updated_at": now}
    moved = data(await api.patch(path, {"name": "cron", "sort_index": -1}))
    assert moved["attributes"] == {**renamed["attributes"], "name": "cron", "sort_index": -1}
    assert data(await api.get(path)) == moved


@only(PAUSABLE)
async def test_patch_keeps_paused(api: Api, case: Case) -> None:
    group = await new_group(api, case, paused=True)
    updated = data(await api.patch(f"{case.url}/{group['id']}", {"name": "cron"}))
    assert updated["attributes"]["paused"] is True


async def test_null_is_refused_on_every_field(api: Api, case: Case) -> None:
    group = await new_group(api, case)
    path = f"{case.url}/{group['id']}"
    for field in case.writable:
        messages, fields = errors(await api.patch(path, {field: None}))
        assert (messages, fields) == ([f"{field} must not be null"], [field])
    _, fields = errors(await api.patch(path, {"name": None, "sort_index": None}))
    assert set(fields) == {"name", "sort_index"}


async def test_patch_refuses(api: Api, case: Case) -> None:
    group = await new_group(api, case, "mine")
    path = f"{case.url}/{group['id']}"
    for body, field in [
        ({"name": ""}, "name"),
        ({"sort_index": "2"}, "sort_index"),
        ({"created_at": "2020-01-01T00:00:00Z"}, "created_at"),
        ({"unknown": 1}, "unknown"),
    ]:
        assert errors(await api.patch(path, body))[1] == [field], body
    assert data(await api.get(path)) == group


# ---------------------------------------------------------------------- unique names


@only(UNIQUE_NAMES)
async def test_names_are_unique_within_a_team(api: Api, other_api: Api, case: Case) -> None:
    await new_group(api, case, "prod")
    messages, invalid = errors(await api.post(case.url, {"name": "prod"}))
    assert invalid == ["name"]
    assert "already used" in messages[0]
    assert errors(await api.post(case.url, {"name": " prod "}))[1] == ["name"]
    await new_group(other_api, case, "prod")  # another team may use the name


@only(UNIQUE_NAMES)
async def test_patch_to_a_taken_name_is_refused(api: Api, case: Case) -> None:
    await new_group(api, case, "taken")
    group = await new_group(api, case, "mine")
    assert errors(await api.patch(f"{case.url}/{group['id']}", {"name": "taken"}))[1] == ["name"]
    assert data(await api.get(f"{case.url}/{group['id']}")) == group


@only(UNIQUE_NAMES)
async def test_patch_to_its_own_name_is_fine(api: Api, case: Case) -> None:
    group = await new_group(api, case, "prod")
    assert data(await api.patch(f"{case.url}/{group['id']}", {"name": "prod"}))


@only(UNIQUE_NAMES)
async def test_deleted_group_name_can_be_reused(api: Api, case: Case) -> None:
    group = await new_group(api, case, "a")
    assert (await api.delete(f"{case.url}/{group['id']}")).status_code == 204
    await new_group(api, case, "a")


# --------------------------------------------------------------------------- pausing


@only(PAUSABLE)
async def test_pausing_the_group_pauses_its_members(
    api: Api, case: Case, clock: FrozenClock
) -> None:
    group = await new_group(api, case)
    inside = await new_member(api, case, group)
    already = await new_member(api, case, group, paused=True)
    outside = await new_member(api, case, None)
    clock.advance(60)
    paused = data(await api.patch(f"{case.url}/{group['id']}", {"paused": True}))
    assert paused["attributes"]["paused"] is True
    now = isoformat_ms(clock.now())
    first = data(await api.get(f"{case.members_url}/{inside['id']}"))["attributes"]
    assert (first["paused"], first["status"], first["paused_at"]) == (True, "paused", now)
    second = data(await api.get(f"{case.members_url}/{already['id']}"))["attributes"]
    assert second["paused_at"] == already["attributes"]["paused_at"]
    assert data(await api.get(f"{case.members_url}/{outside['id']}")) == outside

    clock.advance(60)
    data(await api.patch(f"{case.url}/{group['id']}", {"paused": False}))
    for member in (inside, already):
        attributes = data(await api.get(f"{case.members_url}/{member['id']}"))["attributes"]
        state = (attributes["paused"], attributes["status"], attributes["paused_at"])
        assert state == (False, "pending", None)


@only(PAUSABLE)
async def test_a_member_joining_a_paused_group_keeps_its_state(api: Api, case: Case) -> None:
    group = await new_group(api, case, paused=True)
    joined = await new_member(api, case, group)
    assert joined["attributes"]["paused"] is False


# --------------------------------------------------------------------------- lists


async def test_list_groups_paginated_in_id_order(api: Api, other_api: Api, case: Case) -> None:
    created = [await new_group(api, case, f"g{i}") for i in range(3)]
    await new_group(other_api, case, "theirs")
    first = (await api.get(case.url, params={"per_page": 2})).json()
    second = (await api.get(case.url, params={"per_page": 2, "page": 2})).json()
    assert first["data"] + second["data"] == created
    assert first["pagination"]["prev"] is None
    assert first["pagination"]["next"].endswith("page=2&per_page=2")
    assert second["pagination"]["next"] is None
    assert second["pagination"]["prev"] == f"http://testserver{case.url}?page=1&per_page=2"


async def test_group_members_are_listed_and_paginated(api: Api, case: Case) -> None:
    group, other = await new_group(api, case, "a"), await new_group(api, case, "b")
    inside = [await new_member(api, case, group) for _ in range(3)]
    await new_member(api, case, other)
    await new_member(api, case, None)
    path = f"{case.url}/{group['id']}/{case.kind.members}"
    body = (await api.get(path, params={"per_page": 2})).json()
    assert body["data"] == inside[:2]
    assert all(item["type"] == case.kind.member_type for item in body["data"])
    assert body["pagination"]["next"].endswith(f"{path}?page=2&per_page=2")
    assert body["pagination"]["last"].endswith(f"{path}?page=2&per_page=2")
    second = (await api.get(path, params={"page": 2, "per_page": 2})).json()
    assert second["data"] == inside[2:]
    assert second["pagination"]["next"] is None


# --------------------------------------------------------------------------- delete


async def test_delete_ungroups_its_members(api: Api, case: Case, clock: FrozenClock) -> None:
    group, other = await new_group(api, case, "a"), await new_group(api, case, "b")
    grouped = await new_member(api, case, group)
    elsewhere = await new_member(api, case, other)
    clock.advance(10)
    path = f"{case.url}/{group['id']}"
    response = await api.delete(path)
    assert response.status_code == 204 and response.content == b""
    assert (await api.get(path)).status_code == 404
    assert (await api.get(f"{path}/{case.kind.members}")).status_code == 404
    after = data(await api.get(f"{case.members_url}/{grouped['id']}"))
    assert after["attributes"] == {
        **grouped["attributes"],
        case.key: None,
        "updated_at": isoformat_ms(clock.now()),
    }
    assert data(await api.get(f"{case.members_url}/{elsewhere['id']}")) == elsewhere
    assert (await api.delete(path)).status_code == 404


# ------------------------------------------------------------------------- isolation


async def test_other_team_cannot_touch_a_group(api: Api, other_api: Api, case: Case) -> None:
    group = await new_group(api, case)
    member = await new_member(api, case, group)
    path = f"{case.url}/{group['id']}"
    change: dict[str, Any] = {"name": "theirs"}
    if case.kind.pause_member is not None:
        change["paused"] = True
    assert (await other_api.get(case.url)).json()["data"] == []
    for response in (
        await other_api.get(path),
        await other_api.get(f"{path}/{case.kind.members}"),
        await other_api.patch(path, change),
        await other_api.delete(path),
    ):
        assert response.status_code == 404, response.text
        assert response.json() == {
            "errors": f"Resource type {case.kind.api_type} with id = {group['id']} was not found"
        }
    assert data(await api.get(path)) == group
    assert data(await api.get(f"{case.members_url}/{member['id']}")) == member


async def test_unknown_group_ids_are_404(api: Api, case: Case) -> None:
    for raw in ("999", "x1"):
        path = f"{case.url}/{raw}"
        for response in (
            await api.get(path),
            await api.get(f"{path}/{case.kind.members}"),
            await api.patch(path, {"name": "x"}),
            await api.delete(path),
        ):
            assert response.status_code == 404, response.text
            assert response.json() == {
                "errors": f"Resource type {case.kind.api_type} with id = {raw} was not found"
            }
