"""Metadata records: the hosted API's /api/v3/metadata, as its clients send them, and what
they do to incidents, status page metadata rules and escalation policies' branching."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import create_member
from tests.factories.incidents import (
    create_engine_incident,
    create_heartbeat_id,
    create_monitor_id,
    create_reported_incident,
)

URL = "/api/v3/metadata"


async def put(api: Api, status: int = 201, **body: Any) -> dict[str, Any]:
    return data(await api.post(URL, body), status)


async def listed(api: Api, query: str = "") -> list[dict[str, Any]]:
    body = (await api.get(f"{URL}?{query}")).json()
    assert "pagination" in body, body
    return [item for item in body["data"]]


INCOMING: dict[str, Any] = {
    "name": "In",
    "started_rule_type": "any",
    "started_rules": [{"rule_target": "body", "match_type": "contains", "content": "down"}],
    "acknowledged_rule_type": "unused",
    "resolved_rule_type": "unused",
}


async def test_a_key_is_set_read_changed_and_removed_as_the_hosted_api_does(api: Api) -> None:
    monitor = await create_monitor_id(api)
    made = await put(
        api,
        owner_type="Monitor",
        owner_id=str(monitor),
        key="Key 1",
        values=[{"value": "Value 1"}, {"value": "Value 2"}],
    )
    assert made["type"] == "metadata"
    attrs = made["attributes"]
    assert attrs["key"] == "Key 1"
    assert attrs["values"] == [
        {"type": "String", "value": "Value 1"},
        {"type": "String", "value": "Value 2"},
    ]
    assert attrs["owner_id"] == str(monitor) and attrs["owner_type"] == "Monitor"
    assert attrs["team_name"] == api.team_name
    assert attrs["created_at"] and attrs["updated_at"]
    assert data(await api.get(f"{URL}/{made['id']}")) == made

    # POST again: the same record, its values replaced (one record per owner and key)
    again = await put(
        api, owner_type="Monitor", owner_id=monitor, key="Key 1", values=[{"value": "Other"}]
    )
    assert again["id"] == made["id"]
    assert again["attributes"]["values"] == [{"type": "String", "value": "Other"}]
    merged = await put(
        api,
        owner_type="Monitor",
        owner_id=monitor,
        key="Key 1",
        mode="merge",
        values=[{"value": "Other"}, {"value": "Third"}],
    )
    assert [v["value"] for v in merged["attributes"]["values"]] == ["Other", "Third"]
    assert [item["id"] for item in await listed(api)] == [made["id"]]

    patched = data(
        await api.patch(f"{URL}/{made['id']}", {"key": "Renamed", "values": [{"value": "P"}]})
    )
    assert patched["attributes"]["key"] == "Renamed"
    assert patched["attributes"]["values"] == [{"type": "String", "value": "P"}]

    # no values: the key is removed (204), as the provider's delete does
    removed = await api.post(
        URL, {"owner_type": "Monitor", "owner_id": str(monitor), "key": "Renamed", "values": None}
    )
    assert removed.status_code == 204, removed.text
    assert (await api.get(f"{URL}/{made['id']}")).status_code == 404
    # removing a key that is not there is no error either
    assert (
        await api.post(
            URL, {"owner_type": "Monitor", "owner_id": monitor, "key": "x", "values": []}
        )
    ).status_code == 204

    other = await put(api, owner_type="Monitor", owner_id=monitor, key="k", values=[{"value": "v"}])
    assert (await api.delete(f"{URL}/{other['id']}")).status_code == 204
    assert (await api.get(f"{URL}/{other['id']}")).status_code == 404
    assert (await api.delete(f"{URL}/{other['id']}")).status_code == 404


async def test_typed_values_name_items_of_the_team(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", name="Ann")
    monitor = await create_monitor_id(api)
    policy = data(await api.post("/api/v3/policies", {"name": "Ops policy"}), 201)
    calendar = data(await api.post("/api/v2/on-calls", {"name": "Secondary"}), 201)
    cases: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = [
        (
            [{"type": "User", "email": "ANN@example.com"}],
            [{"type": "User", "name": "Ann", "email": "ann@example.com"}],
        ),
        ([{"type": "Team", "name": "acme"}], [{"type": "Team", "item_id": str(api.team_id)}]),
        (
            [{"type": "Policy", "item_id": int(policy["id"])}],
            [{"type": "Policy", "item_id": int(policy["id"]), "name": "Ops policy"}],
        ),
        (
            [{"type": "Policy", "name": "Ops policy"}],
            [{"type": "Policy", "item_id": policy["id"]}],
        ),
        (
            [{"type": "Schedule", "item_id": calendar["id"]}],
            [{"type": "Schedule", "item_id": calendar["id"], "name": "Secondary"}],
        ),
    ]
    for n, (sent, expected) in enumerate(cases):
        made = await put(api, owner_type="Monitor", owner_id=monitor, key=f"k{n}", values=sent)
        shown = made["attributes"]["values"]
        for value, wanted in zip(shown, expected, strict=True):
            assert value | wanted == value, (value, wanted)  # the fields sent come back


async def test_bad_requests_are_422_naming_the_field(api: Api, other_api: Api) -> None:
    monitor = await create_monitor_id(api)
    theirs = await create_monitor_id(other_api)
    good: dict[str, Any] = {
        "owner_type": "Monitor",
        "owner_id": str(monitor),
        "key": "k",
        "values": [{"value": "v"}],
    }
    cases: list[tuple[dict[str, Any], str]] = [
        ({"owner_id": str(theirs)}, "owner_id"),
        ({"owner_id": "999999"}, "owner_id"),
        ({"owner_id": "abc"}, "owner_id"),
        ({"owner_type": "Heartbeat"}, "owner_id"),  # a monitor's id names no heartbeat
        ({"owner_type": "Server"}, "owner_type"),
        ({"owner_type": "CallRouting"}, "owner_type"),  # the hosted API's; none here
        ({"owner_type": "IncomingWebhook"}, "owner_id"),  # a monitor's id names no webhook
        ({"key": " "}, "key"),
        ({"color": "red"}, "color"),
        ({"values": [{"value": "v", "colour": 1}]}, "values"),
        ({"values": [{"type": "Nope", "value": "v"}]}, "values"),
        ({"values": [{"type": "String"}]}, "values"),
        ({"values": [{"type": "String", "value": "v", "name": "n"}]}, "values"),
        ({"values": [{"type": "User", "email": "nobody@example.com"}]}, "values"),
        ({"values": [{"type": "User"}]}, "values"),
        ({"values": [{"type": "Team", "name": "globex"}]}, "values"),
        ({"values": [{"type": "SlackIntegration", "item_id": "1"}]}, "values"),
        ({"values": [{"value": "v"}, {"type": "Team", "name": "acme"}]}, "values"),
        ({"values": [{"value": "v"}] * 101}, "values"),
        ({"mode": "append"}, "mode"),
        ({"team_name": "globex"}, "team_name"),
    ]
    for change, field in cases:
        _, fields = errors(await api.post(URL, {**good, **change}))
        assert field in fields, (change, fields)
    for missing in ("owner_type", "owner_id", "key"):
        body = {name: value for name, value in good.items() if name != missing}
        assert missing in errors(await api.post(URL, body))[1]
    assert await listed(api) == []  # nothing half-written
    made = await put(api, **good)
    url = f"{URL}/{made['id']}"
    patches: list[tuple[dict[str, Any], str]] = [
        ({"values": []}, "values"),
        ({"values": None}, "values"),
        ({"key": None}, "key"),
        ({"owner_type": "Heartbeat"}, "owner_type"),
        ({"owner_id": "12345"}, "owner_id"),
        ({"unknown": 1}, "unknown"),
    ]
    for change, field in patches:
        _, fields = errors(await api.patch(url, change))
        assert fields == [field], (change, fields)
    await put(api, **{**good, "key": "taken"})
    assert errors(await api.patch(url, {"key": "taken"}))[1] == ["key"]
    for query, field in [("owner_type=Server", "owner_type"), ("owner_id=x", "owner_id")]:
        assert errors(await api.get(f"{URL}?{query}"))[1] == [field]


async def test_lists_filter_by_owner_and_paginate(api: Api) -> None:
    monitor = await create_monitor_id(api)
    heartbeat = await create_heartbeat_id(api)
    for n in range(3):
        await put(api, owner_type="Monitor", owner_id=monitor, key=f"m{n}", values=[{"value": "x"}])
    await put(api, owner_type="Heartbeat", owner_id=heartbeat, key="h", values=[{"value": "y"}])
    assert len(await listed(api)) == 4
    mine = await listed(api, f"owner_id={monitor}&owner_type=Monitor")
    assert [item["attributes"]["key"] for item in mine] == ["m0", "m1", "m2"]
    hearts = await listed(api, "owner_type=Heartbeat")
    assert [item["attributes"]["key"] for item in hearts] == ["h"]
    assert len(await listed(api, f"team_name={api.team_name}")) == 4
    page = (await api.get(f"{URL}?per_page=2&page=2")).json()
    assert len(page["data"]) == 2 and page["pagination"]["next"] is None


async def test_teams_see_only_their_own(api: Api, other_api: Api) -> None:
    monitor = await create_monitor_id(api)
    made = await put(api, owner_type="Monitor", owner_id=monitor, key="k", values=[{"value": "v"}])
    assert await listed(other_api) == []
    assert await listed(other_api, f"owner_id={monitor}&owner_type=Monitor") == []
    for response in (
        await other_api.get(f"{URL}/{made['id']}"),
        await other_api.patch(f"{URL}/{made['id']}", {"values": [{"value": "x"}]}),
        await other_api.delete(f"{URL}/{made['id']}"),
    ):
        assert response.status_code == 404, response.text
    assert data(await api.get(f"{URL}/{made['id']}")) == made


async def test_deleting_the_owner_deletes_its_metadata(app: FastAPI, api: Api) -> None:
    monitor = await create_monitor_id(api)
    heartbeat = await create_heartbeat_id(api)
    reported = await create_reported_incident(api)
    hook = {"url": "https://hooks.example.com/a", "trigger_type": "incident_change"}
    outgoing = data(await api.post("/api/v2/outgoing-webhooks", hook), 201)["id"]
    mail = data(await api.post("/api/v2/email-integrations", INCOMING), 201)["id"]
    incoming = data(await api.post("/api/v2/incoming-webhooks", INCOMING), 201)["id"]
    owners = [
        ("Monitor", monitor),
        ("Heartbeat", heartbeat),
        ("Incident", reported["id"]),
        ("WebhookIntegration", outgoing),
        ("EmailIntegration", mail),
        ("IncomingWebhook", incoming),
    ]
    for owner_type, owner_id in owners:
        await put(api, owner_type=owner_type, owner_id=owner_id, key="k", values=[{"value": "v"}])
    kept = await create_monitor_id(api, "https://kept.example.com")
    await put(api, owner_type="Monitor", owner_id=kept, key="k", values=[{"value": "v"}])
    assert (await api.delete(f"/api/v2/monitors/{monitor}")).status_code == 204
    assert (await api.delete(f"/api/v2/heartbeats/{heartbeat}")).status_code == 204
    assert (await api.delete(f"/api/v2/incidents/{reported['id']}")).status_code == 204
    for path in (
        f"/api/v2/outgoing-webhooks/{outgoing}",
        f"/api/v2/email-integrations/{mail}",
        f"/api/v2/incoming-webhooks/{incoming}",
    ):
        assert (await api.delete(path)).status_code == 204, path
    left = await listed(api)
    assert [(i["attributes"]["owner_type"], i["attributes"]["owner_id"]) for i in left] == [
        ("Monitor", str(kept))
    ]


async def test_incident_records_are_its_metadata(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", name="Ann")
    reported = await create_reported_incident(api, metadata={"region": ["eu"]})
    incident = reported["id"]
    # the metadata an incident was reported with is its records
    records = await listed(api, f"owner_type=Incident&owner_id={incident}")
    assert [(r["attributes"]["key"], r["attributes"]["values"]) for r in records] == [
        ("region", [{"type": "String", "value": "eu"}])
    ]
    await put(
        api,
        owner_type="Incident",
        owner_id=incident,
        key="owner",
        values=[{"type": "User", "email": "ann@example.com"}],
    )
    shown = data(await api.get(f"/api/v2/incidents/{incident}"))["attributes"]["metadata"]
    assert shown == {"region": ["eu"], "owner": ["ann@example.com"]}
    region = records[0]["id"]
    data(await api.patch(f"{URL}/{region}", {"key": "zone", "values": [{"value": "us"}]}))
    shown = data(await api.get(f"/api/v2/incidents/{incident}"))["attributes"]["metadata"]
    assert shown == {"zone": ["us"], "owner": ["ann@example.com"]}
    assert (await api.delete(f"{URL}/{region}")).status_code == 204
    shown = data(await api.get(f"/api/v2/incidents/{incident}"))["attributes"]["metadata"]
    assert shown == {"owner": ["ann@example.com"]}


async def test_an_objects_metadata_is_copied_onto_the_incidents_it_opens(
    app: FastAPI, api: Api
) -> None:
    monitor = await create_monitor_id(api)
    await put(
        api,
        owner_type="Monitor",
        owner_id=monitor,
        key="owner",
        values=[{"value": "payments"}, {"value": "billing"}],
    )
    await put(
        api,
        owner_type="Monitor",
        owner_id=monitor,
        key="team",
        values=[{"type": "Team", "name": "acme"}],
    )
    incident = await create_engine_incident(app, api, monitor_id=monitor)
    shown = data(await api.get(f"/api/v2/incidents/{incident}"))["attributes"]["metadata"]
    assert shown == {"owner": ["payments", "billing"], "team": ["acme"]}
    copied = await listed(api, f"owner_type=Incident&owner_id={incident}")
    assert {r["attributes"]["key"]: r["attributes"]["values"] for r in copied} == {
        "owner": [{"type": "String", "value": "payments"}, {"type": "String", "value": "billing"}],
        "team": [{"type": "Team", "item_id": str(api.team_id), "name": "acme"}],
    }
    # later changes of the monitor's metadata do not rewrite the incident's
    await put(api, owner_type="Monitor", owner_id=monitor, key="owner", values=[{"value": "x"}])
    shown = data(await api.get(f"/api/v2/incidents/{incident}"))["attributes"]["metadata"]
    assert shown["owner"] == ["payments", "billing"]
    # an object without metadata opens incidents without any
    bare = await create_monitor_id(api, "https://bare.example.com")
    other = await create_engine_incident(app, api, monitor_id=bare)
    assert data(await api.get(f"/api/v2/incidents/{other}"))["attributes"]["metadata"] == {}
    assert await listed(api, f"owner_type=Incident&owner_id={other}") == []


async def test_an_incoming_webhooks_metadata_is_copied_onto_the_incidents_it_opens(
    api: Api, client: httpx.AsyncClient
) -> None:
    made = data(await api.post("/api/v2/incoming-webhooks", INCOMING), 201)
    await put(
        api,
        owner_type="IncomingWebhook",
        owner_id=made["id"],
        key="service",
        values=[{"value": "checkout"}],
    )
    receive = made["attributes"]["url"].removeprefix("http://testserver")
    assert (await client.post(receive, content=b"down")).json()["result"] == "started"
    incident = (await api.get("/api/v2/incidents")).json()["data"][0]
    assert incident["attributes"]["metadata"]["service"] == ["checkout"]


async def test_an_owner_holds_a_bounded_number_of_keys(api: Api) -> None:
    monitor = await create_monitor_id(api)
    for n in range(50):
        await put(api, owner_type="Monitor", owner_id=monitor, key=f"k{n}", values=[{"value": "v"}])
    body = {"owner_type": "Monitor", "owner_id": monitor, "values": [{"value": "v"}]}
    assert errors(await api.post(URL, {**body, "key": "one too many"}))[1] == ["key"]
    assert (await api.post(URL, {**body, "key": "k0"})).status_code == 201  # kept keys change
    page = (await api.get(f"{URL}?owner_id={monitor}&per_page=100")).json()
    assert len(page["data"]) == 50
