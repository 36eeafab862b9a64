"""The hosted API's Terraform provider (betteruptime_metadata) replayed: the requests it
sends for its acceptance test and its examples, in its order (create, read, update, read,
delete), and what it reads back: every attribute it keeps equals what was sent."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import create_member
from tests.factories.incidents import create_heartbeat_id, create_monitor_id

URL = "/api/v3/metadata"


def provider_body(owner_type: str, owner_id: str, key: str, values: Any) -> str:
    """The JSON the provider marshals: its struct's field order, omitempty fields left out."""
    return json.dumps(
        {"owner_type": owner_type, "owner_id": owner_id, "key": key, "values": values},
        separators=(",", ":"),
    )


def read_back(sent: list[dict[str, Any]], shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """metadataCopyAttrs: item_id, email and name are kept only where configured; item_id is
    a json.Number (a number or a string of digits), kept as its text."""
    state = []
    for configured, value in zip(sent, shown, strict=True):
        kept = {"type": value["type"], "value": value.get("value", "")}
        for name in ("item_id", "email", "name"):
            kept[name] = str(value.get(name, "")) if configured.get(name) else ""
        state.append(kept)
    return state


def configured(values: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The state of the configured blocks (type defaults to String, unset fields empty)."""
    return [
        {
            "type": value.get("type", "String"),
            **{name: str(value.get(name, "")) for name in ("value", "item_id", "email", "name")},
        }
        for value in values
    ]


async def post(api: Api, body: str, status: int = 201) -> dict[str, Any]:
    response = await api.client.post(
        URL, content=body, headers={**api.headers, "Content-Type": "application/json"}
    )
    assert response.status_code == status, response.text
    return response.json() if status != 204 else {}


async def read(api: Api, owner_type: str, owner_id: str, key: str) -> dict[str, Any] | None:
    """metadataRead: the owner's list, the entry with the key."""
    response = await api.get(f"{URL}?owner_id={owner_id}&owner_type={owner_type}")
    assert response.status_code == 200, response.text
    for item in response.json()["data"]:
        if item["attributes"]["key"] == key:
            return dict(item)
    return None


async def lifecycle(
    api: Api,
    owner_type: str,
    owner_id: str,
    key: str,
    values: list[dict[str, Any]],
    changed: list[dict[str, Any]],
) -> None:
    def wire(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """loadMetadataValues: the configured fields, item_id a JSON number."""
        out = []
        for block in blocks:
            value: dict[str, Any] = {"type": block.get("type", "String")}
            for name in ("value", "item_id", "name", "email"):
                if block.get(name):
                    value[name] = int(block[name]) if name == "item_id" else block[name]
            out.append(value)
        return out

    created = (await post(api, provider_body(owner_type, owner_id, key, wire(values))))["data"]
    attributes = created["attributes"]
    assert (attributes["owner_type"], attributes["owner_id"], attributes["key"]) == (
        owner_type,
        owner_id,
        key,
    )
    assert read_back(values, attributes["values"]) == configured(values)
    found = await read(api, owner_type, owner_id, key)
    assert found is not None and found["id"] == created["id"]
    assert read_back(values, found["attributes"]["values"]) == configured(values)

    updated = (await post(api, provider_body(owner_type, owner_id, key, wire(changed))))["data"]
    assert updated["id"] == created["id"]
    assert read_back(changed, updated["attributes"]["values"]) == configured(changed)
    found = await read(api, owner_type, owner_id, key)
    assert found is not None
    assert read_back(changed, found["attributes"]["values"]) == configured(changed)

    # metadataDelete: the same POST with `"values":null`
    await post(api, provider_body(owner_type, owner_id, key, None), status=204)
    assert await read(api, owner_type, owner_id, key) is None


async def test_the_acceptance_test(api: Api) -> None:
    monitor = str(await create_monitor_id(api))
    await lifecycle(
        api,
        "Monitor",
        monitor,
        "test_key",
        [{"value": "test_value"}],
        [{"value": "test_value_changed"}],
    )
    # a new key is a new resource (ForceNew): delete, then create
    await lifecycle(
        api, "Monitor", monitor, "test_key_changed", [{"value": "test_value"}], [{"value": "x"}]
    )


async def test_the_examples(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "petr@example.com", name="Petr")
    await create_member(app, "acme", "jana@example.com", name="Jana")
    monitor = str(await create_monitor_id(api))
    heartbeat = str(await create_heartbeat_id(api))
    policy_id = (await api.post("/api/v3/policies", {"name": "Primary"})).json()["data"]["id"]
    await api.post("/api/v3/policies", {"name": "My Existing Escalation Policy"})
    calendar = (await api.post("/api/v2/on-calls", {"name": "Escalation calendar"})).json()
    await lifecycle(
        api, "Monitor", monitor, "E-mail", [{"value": "hello@example.com"}], [{"value": "a@b.c"}]
    )
    await lifecycle(
        api,
        "Monitor",
        monitor,
        "Assigned User",
        [{"type": "User", "email": "petr@example.com"}],
        [{"type": "User", "email": "jana@example.com"}],
    )
    await lifecycle(
        api,
        "Monitor",
        monitor,
        "Assigned Policy",
        [{"type": "Policy", "item_id": policy_id}],
        [{"type": "Policy", "name": "My Existing Escalation Policy"}],
    )
    await lifecycle(
        api,
        "Heartbeat",
        heartbeat,
        "runbook-owner",
        [{"type": "Policy", "name": "My Existing Escalation Policy"}],
        [{"type": "Policy", "name": "Primary"}],
    )
    await lifecycle(
        api,
        "Heartbeat",
        heartbeat,
        "Owning team",
        [{"type": "Team", "name": "acme"}],
        [{"type": "Team", "item_id": str(api.team_id)}],
    )
    await lifecycle(
        api,
        "Heartbeat",
        heartbeat,
        "Escalation calendar",
        [{"type": "Schedule", "item_id": calendar["data"]["id"]}],
        [{"type": "Schedule", "name": "Escalation calendar"}],
    )
