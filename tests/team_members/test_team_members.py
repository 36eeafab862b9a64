"""Team members (/api/v2/team-members): the team's people, read as the hosted API and its
Terraform provider read them (a list, one by id, or one by e-mail as a single object)."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import create_member

MEMBERS = "/api/v2/team-members"
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


async def test_members_are_the_teams_people(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "Ann@Example.com", "Ann Lee Smith")
    await create_member(app, "acme", "bob@example.com", "Bob")
    await create_member(app, "globex", "eve@example.com", "Eve")
    listed = (await api.get(MEMBERS)).json()
    assert [m["type"] for m in listed["data"]] == ["team_member", "team_member"]
    ann = listed["data"][0]
    assert STAMP.match(ann["attributes"].pop("created_at"))
    assert ann["attributes"] == {
        "email": "ann@example.com",
        "first_name": "Ann",
        "last_name": "Lee Smith",
        "role": "admin",
        "role_id": None,
        "invited_at": None,
        "mobile_app_platforms": [],
        "team_name": "acme",
    }
    bob = listed["data"][1]["attributes"]
    assert (bob["first_name"], bob["last_name"]) == ("Bob", "")
    one = data(await api.get(f"{MEMBERS}/{listed['data'][1]['id']}"))
    assert one == listed["data"][1]
    assert listed["pagination"]["next"] is None


async def test_one_member_by_email_as_the_terraform_provider_reads_it(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Lee")
    await create_member(app, "globex", "eve@example.com", "Eve")
    found = await api.get(MEMBERS, params={"email": "ANN@example.com", "team_name": "acme"})
    assert found.status_code == 200
    body = found.json()
    assert set(body) == {"data"} and body["data"]["attributes"]["email"] == "ann@example.com"
    assert body["data"] == data(await api.get(f"{MEMBERS}/{body['data']['id']}"))
    assert (await api.get(MEMBERS, params={"email": "nobody@example.com"})).status_code == 404
    assert (await api.get(MEMBERS, params={"email": "eve@example.com"})).status_code == 404
    _, fields = errors(await api.get(MEMBERS, params={"team_name": "globex"}))
    assert fields == ["team_name"]


async def test_members_are_paged_and_private(app: FastAPI, api: Api, other_api: Api) -> None:
    for n in range(5):
        await create_member(app, "acme", f"p{n}@example.com", f"Person {n}")
    await create_member(app, "globex", "eve@example.com", "Eve")
    first = (await api.get(MEMBERS, params={"per_page": 2})).json()
    assert [m["attributes"]["email"] for m in first["data"]] == ["p0@example.com", "p1@example.com"]
    last = (await api.get(first["pagination"]["last"])).json()
    assert [m["attributes"]["email"] for m in last["data"]] == ["p4@example.com"]
    eve = (await other_api.get(MEMBERS)).json()["data"]
    assert [m["attributes"]["email"] for m in eve] == ["eve@example.com"]
    assert (await api.get(f"{MEMBERS}/{eve[0]['id']}")).status_code == 404
    assert (await api.get(f"{MEMBERS}/nope")).status_code == 404


async def test_members_are_not_invited_or_removed_through_the_api(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    member = (await api.get(MEMBERS)).json()["data"][0]
    assert (await api.post(MEMBERS, {"email": "new@example.com"})).status_code == 405
    assert (await api.delete(f"{MEMBERS}/{member['id']}")).status_code == 405
    assert (await api.delete(MEMBERS, params={"email": "ann@example.com"})).status_code == 405
    assert [m["id"] for m in (await api.get(MEMBERS)).json()["data"]] == [member["id"]]
