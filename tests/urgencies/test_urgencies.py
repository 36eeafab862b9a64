"""Urgencies (the hosted API's /api/v2/urgencies; severities in its Terraform provider):
stored and shown as sent, checked against the team's urgency groups, named by policy steps."""

from __future__ import annotations

from typing import Any

from tests.factories.api import Api, data, errors

URGENCIES = "/api/v2/urgencies"
GROUPS = "/api/v2/urgency-groups"
POLICIES = "/api/v3/policies"


async def create_group(api: Api, name: str = "Levels") -> int:
    return int(data(await api.post(GROUPS, {"name": name}), 201)["id"])


async def create_urgency(api: Api, **body: Any) -> dict[str, Any]:
    return data(await api.post(URGENCIES, {"name": "High", **body}), 201)


async def test_an_urgency_not_told_otherwise_e_mails_and_pushes(api: Api) -> None:
    created = await create_urgency(api, name="Low")
    assert created["type"] == "urgency"
    assert created["attributes"] == {
        "name": "Low",
        "sms": False,
        "call": False,
        "email": True,
        "push": True,
        "critical_alert": False,
        "urgency_group_id": None,
        "team_name": "acme",
    }
    assert data(await api.get(f"{URGENCIES}/{created['id']}")) == created


async def test_what_terraform_sends_reads_back_the_same(api: Api) -> None:
    group = await create_group(api)
    sent = {
        "name": "Critical",
        "sms": True,
        "call": True,
        "email": False,
        "push": False,
        "critical_alert": True,
        "urgency_group_id": group,
        "team_name": "acme",
    }
    created = data(await api.post(URGENCIES, sent), 201)
    path = f"{URGENCIES}/{created['id']}"
    assert created["attributes"] == sent
    assert data(await api.get(path))["attributes"] == sent

    changed = data(await api.patch(path, {"call": False, "name": "Major"}))["attributes"]
    assert changed == {**sent, "call": False, "name": "Major"}
    ungrouped = data(await api.patch(path, {"urgency_group_id": None}))["attributes"]
    assert ungrouped["urgency_group_id"] is None and ungrouped["sms"] is True
    assert data(await api.get(path))["attributes"] == ungrouped

    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404
    assert (await api.delete(path)).status_code == 404


async def test_bad_urgencies_are_refused_whole(api: Api, other_api: Api) -> None:
    theirs = await create_group(other_api)
    _, fields = errors(await api.post(URGENCIES, {"name": "x", "colour": "red"}))
    assert fields == ["colour"]
    _, fields = errors(await api.post(URGENCIES, {"sms": True}))
    assert fields == ["name"]
    _, fields = errors(
        await api.post(URGENCIES, {"name": "x", "sms": "yes", "urgency_group_id": "1"})
    )
    assert sorted(fields) == ["sms", "urgency_group_id"]
    messages, fields = errors(await api.post(URGENCIES, {"name": "x", "urgency_group_id": theirs}))
    assert fields == ["urgency_group_id"] and "urgency group of this team" in messages[0]
    _, fields = errors(await api.post(URGENCIES, {"name": "x", "team_name": "globex"}))
    assert fields == ["team_name"]
    _, fields = errors(await api.post(URGENCIES, {"name": "x" * 256}))
    assert fields == ["name"]

    path = f"{URGENCIES}/{(await create_urgency(api))['id']}"
    _, fields = errors(await api.patch(path, {"name": None, "email": None}))
    assert fields == ["name", "email"]
    _, fields = errors(await api.patch(path, {"urgency_group_id": theirs}))
    assert fields == ["urgency_group_id"]
    listed = (await api.get(URGENCIES)).json()["data"]
    assert [item["attributes"]["name"] for item in listed] == ["High"]  # nothing half-made


async def test_teams_see_only_their_own(api: Api, other_api: Api) -> None:
    mine = await create_urgency(api, name="Mine")
    theirs = await create_urgency(other_api, name="Theirs")
    assert [u["id"] for u in (await api.get(URGENCIES)).json()["data"]] == [mine["id"]]
    assert (await api.get(f"{URGENCIES}/{theirs['id']}")).status_code == 404
    assert (await api.patch(f"{URGENCIES}/{theirs['id']}", {"name": "x"})).status_code == 404
    assert (await api.delete(f"{URGENCIES}/{theirs['id']}")).status_code == 404
    assert data(await other_api.get(f"{URGENCIES}/{theirs['id']}")) == theirs


async def test_urgencies_are_listed_a_page_at_a_time(api: Api) -> None:
    names = [f"level {n}" for n in range(5)]
    for name in names:
        await create_urgency(api, name=name)
    first = (await api.get(URGENCIES, params={"per_page": 2})).json()
    assert [u["attributes"]["name"] for u in first["data"]] == names[:2]
    assert first["pagination"]["last"].endswith("page=3&per_page=2")
    last = (await api.get(first["pagination"]["last"])).json()
    assert [u["attributes"]["name"] for u in last["data"]] == names[4:]
    assert last["pagination"]["next"] is None
    _, fields = errors(await api.get(URGENCIES, params={"page": "0"}))
    assert fields == ["page"]


async def test_deleting_a_group_takes_its_urgencies_out_of_it(api: Api) -> None:
    group, kept = await create_group(api), await create_group(api, "Other")
    inside = await create_urgency(api, urgency_group_id=group)
    elsewhere = await create_urgency(api, urgency_group_id=kept)
    assert (await api.delete(f"{GROUPS}/{group}")).status_code == 204
    shown = data(await api.get(f"{URGENCIES}/{inside['id']}"))["attributes"]
    assert shown["urgency_group_id"] is None
    assert data(await api.get(f"{URGENCIES}/{elsewhere['id']}"))["attributes"][
        "urgency_group_id"
    ] == (kept)


def step(urgency_id: int | None = None) -> dict[str, Any]:
    made: dict[str, Any] = {"type": "escalation", "step_members": [{"type": "entire_team"}]}
    if urgency_id is not None:
        made["urgency_id"] = urgency_id
    return made


async def test_a_step_names_an_urgency_of_the_team(api: Api, other_api: Api) -> None:
    mine = int((await create_urgency(api))["id"])
    theirs = int((await create_urgency(other_api))["id"])
    body = {"name": "Ops", "steps": [step(mine), step(theirs), step(987654321)]}
    messages, fields = errors(await api.post(POLICIES, body))
    assert fields == ["steps[1].urgency_id", "steps[2].urgency_id"]
    assert all("urgency of this team" in message for message in messages)
    policy = data(await api.post(POLICIES, {"name": "Ops", "steps": [step(mine)]}), 201)
    path = f"{POLICIES}/{policy['id']}"
    _, fields = errors(await api.patch(path, {"steps": [step(), step(theirs)]}))
    assert fields == ["steps[1].urgency_id"]
    assert data(await api.get(path))["attributes"]["steps"] == [step(mine)]


async def test_deleting_an_urgency_takes_it_out_of_the_steps(api: Api, other_api: Api) -> None:
    gone = int((await create_urgency(api, name="Gone"))["id"])
    stays = int((await create_urgency(api, name="Stays"))["id"])
    steps = [step(gone), step(stays), step(), {**step(gone), "wait_before": 60}]
    first = data(await api.post(POLICIES, {"name": "A", "steps": steps}), 201)
    second = data(await api.post(POLICIES, {"name": "B", "steps": [step(stays)]}), 201)
    theirs = int((await create_urgency(other_api))["id"])
    other = data(await other_api.post(POLICIES, {"name": "C", "steps": [step(theirs)]}), 201)

    assert (await api.delete(f"{URGENCIES}/{gone}")).status_code == 204
    shown = data(await api.get(f"{POLICIES}/{first['id']}"))["attributes"]["steps"]
    assert shown == [step(), step(stays), step(), {**step(), "wait_before": 60}]
    assert data(await api.get(f"{POLICIES}/{second['id']}")) == second
    assert data(await other_api.get(f"{POLICIES}/{other['id']}")) == other
