"""Collectors: create, read, change, delete, and their rules."""

from __future__ import annotations

import re
from typing import Any

from tests.factories.api import Api, data, errors
from tests.factories.objects import create_collector
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.collectors.schemas import CollectorAttributes

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
URL = "/api/v1/collectors"


async def test_create_has_the_full_shape(api: Api, clock: FrozenClock) -> None:
    created = data(await api.post(URL, {"name": "edge"}), 201)
    assert created["type"] == "collector" and created["id"].isdigit()
    attributes = created["attributes"]
    CollectorAttributes.model_validate(attributes, strict=True)
    assert set(attributes) == set(CollectorAttributes.model_fields)
    assert attributes["name"] == "edge"
    assert attributes["platform"] == "docker"
    assert attributes["note"] is None
    assert attributes["status"] == "pending"
    assert attributes["team_id"] == api.team_id
    assert isinstance(attributes["secret"], str) and len(attributes["secret"]) >= 43
    assert attributes["created_at"] == attributes["updated_at"] == isoformat_ms(clock.now())
    assert TIMESTAMP.match(attributes["created_at"])
    assert data(await api.get(f"{URL}/{created['id']}")) == created


async def test_platforms_and_note(api: Api) -> None:
    for platform in ("docker", "swarm", "kubernetes"):
        attributes = data(
            await api.post(URL, {"name": platform, "platform": platform, "note": "n"}), 201
        )["attributes"]
        assert (attributes["platform"], attributes["note"]) == (platform, "n")


async def test_secrets_differ_and_stay(api: Api) -> None:
    one, two = await create_collector(api), await create_collector(api)
    assert one["attributes"]["secret"] != two["attributes"]["secret"]
    again = data(await api.get(f"{URL}/{one['id']}"))
    assert again["attributes"]["secret"] == one["attributes"]["secret"]


async def test_create_rules(api: Api) -> None:
    await create_collector(api, name="taken")
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({}, ["name"]),
        ({"name": None}, ["name"]),
        ({"name": ""}, ["name"]),
        ({"name": "   "}, ["name"]),
        ({"name": 5}, ["name"]),
        ({"name": "x" * 256}, ["name"]),
        ({"name": "taken"}, ["name"]),
        ({"name": "ok", "platform": "k8s"}, ["platform"]),
        ({"name": "ok", "platform": None}, ["platform"]),
        ({"name": "ok", "note": 5}, ["note"]),
        ({"name": "ok", "logs_retention": "30"}, ["logs_retention"]),
        ({"name": "ok", "metrics_retention": 0}, ["metrics_retention"]),
        *[
            ({"name": "ok", field: "x"}, [field])
            for field in ("status", "secret", "team_id", "created_at", "updated_at", "id")
        ],
        ({"platform": "k8s", "color": "red"}, ["name", "platform", "color"]),
    ]
    misses = []
    for body, expected in cases:
        response = await api.post(URL, body)
        got = errors(response)[1] if response.status_code == 422 else response.text
        if sorted(got) != sorted(expected):
            misses.append(f"{body}: expected {expected}, got {got}")
    assert not misses, "\n".join(misses)
    assert len((await api.get(URL)).json()["data"]) == 1


async def test_duplicate_name_message(api: Api) -> None:
    await create_collector(api, name="taken")
    messages, _ = errors(await api.post(URL, {"name": "taken"}))
    assert any("already used" in message for message in messages)


async def test_names_are_unique_per_team_only(api: Api, other_api: Api) -> None:
    await create_collector(api, name="shared")
    data(await other_api.post(URL, {"name": "shared"}), 201)


async def test_update(api: Api, clock: FrozenClock) -> None:
    created = await create_collector(api, name="before", note="old", platform="swarm")
    url = f"{URL}/{created['id']}"
    clock.advance(61)
    changed = data(await api.patch(url, {"name": "after", "note": None, "platform": "swarm"}))
    attributes = changed["attributes"]
    assert (attributes["name"], attributes["note"], attributes["platform"]) == (
        "after",
        None,
        "swarm",
    )
    assert attributes["created_at"] == created["attributes"]["created_at"]
    assert attributes["updated_at"] == isoformat_ms(clock.now())
    assert attributes["secret"] == created["attributes"]["secret"]
    assert data(await api.get(url)) == changed


async def test_update_rules(api: Api) -> None:
    await create_collector(api, name="taken")
    created = await create_collector(api, name="mine")
    url = f"{URL}/{created['id']}"
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({"platform": "kubernetes"}, ["platform"]),
        ({"name": None}, ["name"]),
        ({"name": ""}, ["name"]),
        ({"name": "taken"}, ["name"]),
        ({"logs_retention": None}, ["logs_retention"]),
        ({"status": "up"}, ["status"]),
        ({"secret": "mine"}, ["secret"]),
        ({"team_id": 2}, ["team_id"]),
        ({"created_at": "2020-01-01T00:00:00.000Z"}, ["created_at"]),
        ({"name": None, "platform": "swarm"}, ["name", "platform"]),
        ({"name": 5, "bogus": 1}, ["name", "bogus"]),
    ]
    misses = []
    for body, expected in cases:
        response = await api.patch(url, body)
        got = errors(response)[1] if response.status_code == 422 else response.text
        if sorted(got) != sorted(expected):
            misses.append(f"{body}: expected {expected}, got {got}")
    assert not misses, "\n".join(misses)
    assert data(await api.get(url)) == created
    assert data(await api.patch(url, {"name": "mine"}))["attributes"]["name"] == "mine"


async def test_list_is_ordered_by_id(api: Api) -> None:
    created = [await create_collector(api, name=f"c{n}") for n in (3, 1, 2)]
    listed = (await api.get(URL)).json()
    assert listed["data"] == created
    assert set(listed["pagination"]) == {"first", "last", "prev", "next"}


async def test_delete(api: Api) -> None:
    created = await create_collector(api)
    url = f"{URL}/{created['id']}"
    response = await api.delete(url)
    assert response.status_code == 204 and response.content == b""
    assert (await api.get(url)).status_code == 404
    assert (await api.delete(url)).status_code == 404
    assert (await api.get(URL)).json()["data"] == []
    data(await api.post(URL, {"name": created["attributes"]["name"]}), 201)
