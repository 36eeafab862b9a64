"""Urgency groups and policy groups (/api/v2/urgency-groups, /api/v2/policy-groups): a name
and a position, shown as sent; policies name a policy group of their team."""

from __future__ import annotations

import re

import pytest

from tests.factories.api import Api, data, errors

KINDS = {"/api/v2/urgency-groups": "urgency_group", "/api/v2/policy-groups": "policy_group"}
POLICIES = "/api/v3/policies"
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

groups = pytest.mark.parametrize("url", sorted(KINDS))


@groups
async def test_a_group_reads_back_as_sent(api: Api, url: str) -> None:
    created = data(await api.post(url, {"name": "Ops", "sort_index": 2, "team_name": "acme"}), 201)
    assert created["type"] == KINDS[url]
    attributes = dict(created["attributes"])
    assert STAMP.match(attributes.pop("created_at")) and STAMP.match(attributes.pop("updated_at"))
    assert attributes == {"name": "Ops", "sort_index": 2, "team_name": "acme"}
    path = f"{url}/{created['id']}"
    assert data(await api.get(path)) == created

    bare = data(await api.post(url, {"name": "Bare"}), 201)["attributes"]
    assert bare["sort_index"] is None and bare["created_at"] == bare["updated_at"]

    changed = data(await api.patch(path, {"sort_index": -5}))["attributes"]
    assert (changed["name"], changed["sort_index"]) == ("Ops", -5)
    cleared = data(await api.patch(path, {"sort_index": None, "name": "Renamed"}))["attributes"]
    assert (cleared["name"], cleared["sort_index"]) == ("Renamed", None)
    assert data(await api.get(path))["attributes"] == cleared

    listed = (await api.get(url)).json()["data"]
    assert [group["attributes"]["name"] for group in listed] == ["Renamed", "Bare"]
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404


@groups
async def test_bad_groups_are_refused(api: Api, url: str) -> None:
    _, fields = errors(await api.post(url, {"sort_index": 1}))
    assert fields == ["name"]
    _, fields = errors(await api.post(url, {"name": "x", "paused": True}))
    assert fields == ["paused"]
    _, fields = errors(await api.post(url, {"name": "x", "created_at": "2026-01-01T00:00:00Z"}))
    assert fields == ["created_at"]
    _, fields = errors(await api.post(url, {"name": "x", "sort_index": "1"}))
    assert fields == ["sort_index"]
    _, fields = errors(await api.post(url, {"name": "x", "sort_index": 2**31}))
    assert fields == ["sort_index"]
    _, fields = errors(await api.post(url, {"name": "x", "team_name": "globex"}))
    assert fields == ["team_name"]
    path = f"{url}/{data(await api.post(url, {'name': 'ok'}), 201)['id']}"
    _, fields = errors(await api.patch(path, {"name": None}))
    assert fields == ["name"]
    assert [g["attributes"]["name"] for g in (await api.get(url)).json()["data"]] == ["ok"]


@groups
async def test_groups_are_the_teams_own_and_paged(api: Api, other_api: Api, url: str) -> None:
    for n in range(3):
        data(await api.post(url, {"name": f"g{n}", "sort_index": n}), 201)
    theirs = data(await other_api.post(url, {"name": "theirs"}), 201)
    page = (await api.get(url, params={"per_page": 2, "page": 2})).json()
    assert [g["attributes"]["name"] for g in page["data"]] == ["g2"]
    assert page["pagination"]["prev"].endswith("page=1&per_page=2")
    assert (await api.get(f"{url}/{theirs['id']}")).status_code == 404
    assert (await api.patch(f"{url}/{theirs['id']}", {"name": "x"})).status_code == 404
    assert (await api.delete(f"{url}/{theirs['id']}")).status_code == 404
    assert data(await other_api.get(f"{url}/{theirs['id']}")) == theirs


async def test_a_policy_names_a_policy_group_of_its_team(api: Api, other_api: Api) -> None:
    group = int(data(await api.post("/api/v2/policy-groups", {"name": "Ops"}), 201)["id"])
    theirs = int(data(await other_api.post("/api/v2/policy-groups", {"name": "x"}), 201)["id"])
    messages, fields = errors(await api.post(POLICIES, {"name": "P", "policy_group_id": theirs}))
    assert fields == ["policy_group_id"] and "policy group of this team" in messages[0]
    _, fields = errors(await api.post(POLICIES, {"name": "P", "policy_group_id": 987654321}))
    assert fields == ["policy_group_id"]
    policy = data(await api.post(POLICIES, {"name": "P", "policy_group_id": group}), 201)
    path = f"{POLICIES}/{policy['id']}"
    assert policy["attributes"]["policy_group_id"] == group
    _, fields = errors(await api.patch(path, {"policy_group_id": theirs}))
    assert fields == ["policy_group_id"]
    cleared = data(await api.patch(path, {"policy_group_id": None}))["attributes"]
    assert cleared["policy_group_id"] is None
    data(await api.patch(path, {"policy_group_id": group}))
    assert data(await api.get(path))["attributes"]["policy_group_id"] == group


async def test_deleting_a_policy_group_takes_its_policies_out_of_it(
    api: Api, other_api: Api
) -> None:
    group = int(data(await api.post("/api/v2/policy-groups", {"name": "Ops"}), 201)["id"])
    kept = int(data(await api.post("/api/v2/policy-groups", {"name": "Kept"}), 201)["id"])
    inside = data(await api.post(POLICIES, {"name": "In", "policy_group_id": group}), 201)
    other = data(await api.post(POLICIES, {"name": "Out", "policy_group_id": kept}), 201)
    assert (await api.delete(f"/api/v2/policy-groups/{group}")).status_code == 204
    shown = data(await api.get(f"{POLICIES}/{inside['id']}"))["attributes"]
    assert shown["policy_group_id"] is None and shown["name"] == "In"
    assert data(await api.get(f"{POLICIES}/{other['id']}")) == other
