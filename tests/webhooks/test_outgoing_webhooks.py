"""Outgoing webhooks: create per trigger_type, the exact response shape, CRUD, pagination,
team isolation and unknown ids."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from tests.factories.api import Api, data
from watchpost.webhooks.triggers import INCIDENT_FLAGS, TRIGGER_RULES, TRIGGER_TYPES

BASE = "/api/v2/outgoing-webhooks"
URL = "https://hooks.example.com/watchpost"


async def create(api: Api, **attributes: Any) -> dict[str, Any]:
    """The created webhook as GET shows it: without the signing key, which only the create
    response carries (tests/delivery/test_signing.py)."""
    body = {"url": URL, "trigger_type": "on_call_change", **attributes}
    created = data(await api.post(BASE, body), 201)
    assert created["attributes"].pop("signing_secret").startswith("whsec_")
    return created


@pytest.mark.parametrize("trigger_type", TRIGGER_TYPES)
async def test_create_each_trigger_type(api: Api, trigger_type: str) -> None:
    created = await create(api, name="Ops hook", trigger_type=trigger_type)
    expected: dict[str, object] = {
        "name": "Ops hook",
        "url": URL,
        "trigger_type": trigger_type,
        "team_name": "acme",
    }
    expected |= dict.fromkeys(TRIGGER_RULES[trigger_type].accepted, False)
    if trigger_type == "incident_change":
        expected["notify_alongside_primary_responder"] = True
    assert created["attributes"] == expected
    assert created["type"] == "outgoing_webhook"
    assert isinstance(created["id"], str) and created["id"].isdigit()


async def test_incident_flags_are_stored_and_default_false(api: Api) -> None:
    created = await create(
        api, trigger_type="incident_change", on_incident_started=True, on_incident_comment=True
    )
    attributes = created["attributes"]
    assert {flag: attributes[flag] for flag in INCIDENT_FLAGS} == {
        "on_incident_started": True,
        "on_incident_acknowledged": False,
        "on_incident_resolved": False,
        "on_incident_reopened": False,
        "on_incident_comment": True,
    }


async def test_name_defaults_to_the_url_host(api: Api) -> None:
    created = await create(api)
    assert created["attributes"]["name"] == "hooks.example.com"


async def test_team_name_of_the_token_is_accepted(api: Api) -> None:
    created = await create(api, team_name="acme")
    assert created["attributes"]["team_name"] == "acme"


async def test_get_without_template_has_exactly_the_spec_shape(api: Api) -> None:
    created = await create(api, name="On-call", trigger_type="on_call_change")
    response = await api.get(f"{BASE}/{created['id']}")
    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "id": created["id"],
            "type": "outgoing_webhook",
            "attributes": {
                "name": "On-call",
                "url": URL,
                "trigger_type": "on_call_change",
                "team_name": "acme",
            },
            "relationships": {"custom_webhook_template": {"data": None}},
        },
        "included": [],
    }


async def test_get_with_template_references_and_includes_it(api: Api) -> None:
    template = {
        "http_method": "put",
        "auth_username": "bot",
        "headers_template": [{"name": "X-Source", "value": "watchpost"}],
        "body_template": '{"text": "$INCIDENT_CAUSE"}',
    }
    created = await create(api, name="Custom", custom_webhook_template_attributes=template)
    response = await api.get(f"{BASE}/{created['id']}")
    body = response.json()
    reference = body["data"]["relationships"]["custom_webhook_template"]["data"]
    assert reference == {"id": reference["id"], "type": "custom_webhook_template"}
    assert isinstance(reference["id"], str) and reference["id"].isdigit()
    assert body["included"] == [
        {"id": reference["id"], "type": "custom_webhook_template", "attributes": template}
    ]
    assert set(body) == {"data", "included"}


async def test_create_and_patch_respond_like_get(api: Api) -> None:
    response = await api.post(
        BASE,
        {"url": URL, "trigger_type": "monitor_change", "custom_webhook_template_attributes": {}},
    )
    assert response.status_code == 201
    created = response.json()
    wid = created["data"]["id"]
    assert created["data"]["attributes"].pop("signing_secret").startswith("whsec_")
    assert (await api.get(f"{BASE}/{wid}")).json() == created
    patched = await api.patch(f"{BASE}/{wid}", {"name": "Renamed"})
    assert patched.status_code == 200
    assert patched.json() == (await api.get(f"{BASE}/{wid}")).json()
    assert patched.json()["data"]["attributes"]["name"] == "Renamed"


async def test_patch_changes_only_sent_fields(api: Api) -> None:
    created = await create(api, name="Before", trigger_type="incident_change")
    wid = created["id"]
    patched = data(
        await api.patch(
            f"{BASE}/{wid}",
            {"url": "http://other.example.org/hook", "on_incident_resolved": True},
        )
    )
    assert patched["attributes"] == {
        **created["attributes"],
        "url": "http://other.example.org/hook",
        "on_incident_resolved": True,
    }
    assert data(await api.get(f"{BASE}/{wid}")) == patched


async def test_patch_with_the_same_trigger_type_is_fine(api: Api) -> None:
    created = await create(api, trigger_type="monitor_change")
    patched = data(await api.patch(f"{BASE}/{created['id']}", {"trigger_type": "monitor_change"}))
    assert patched["attributes"]["trigger_type"] == "monitor_change"


async def test_delete_removes_the_webhook(api: Api) -> None:
    created = await create(api)
    response = await api.delete(f"{BASE}/{created['id']}")
    assert response.status_code == 204
    assert response.content == b""
    assert (await api.get(f"{BASE}/{created['id']}")).status_code == 404
    assert (await api.delete(f"{BASE}/{created['id']}")).status_code == 404


# ---------------------------------------------------------------------------- listing


async def test_list_is_paginated_in_creation_order(api: Api) -> None:
    ids = [(await create(api, name=f"hook {n}"))["id"] for n in range(5)]
    first = (await api.get(BASE, params={"per_page": 2})).json()
    assert [item["id"] for item in first["data"]] == ids[:2]
    assert first["pagination"]["prev"] is None
    assert first["pagination"]["last"].endswith("page=3&per_page=2")
    third = (await api.get(first["pagination"]["last"])).json()
    assert [item["id"] for item in third["data"]] == ids[4:]
    assert third["pagination"]["next"] is None


async def test_list_items_match_get_and_include_the_page_templates(api: Api) -> None:
    plain = await create(api, name="plain")
    templated = await create(
        api, name="templated", custom_webhook_template_attributes={"http_method": "patch"}
    )
    body = (await api.get(BASE)).json()
    assert set(body) == {"data", "included", "pagination"}
    single_plain = (await api.get(f"{BASE}/{plain['id']}")).json()
    single_templated = (await api.get(f"{BASE}/{templated['id']}")).json()
    assert body["data"] == [single_plain["data"], single_templated["data"]]
    assert body["included"] == single_templated["included"]
    # A page whose webhooks have no template includes nothing.
    first_page = (await api.get(BASE, params={"per_page": 1})).json()
    assert first_page["included"] == []


async def test_empty_list(api: Api) -> None:
    body = (await api.get(BASE)).json()
    assert body["data"] == [] and body["included"] == []
    assert body["pagination"]["last"].endswith("page=1&per_page=50")


async def test_bad_pagination_is_422(api: Api) -> None:
    response = await api.get(BASE, params={"page": "0"})
    assert response.status_code == 422
    assert response.json()["invalid_attributes"] == ["page"]


# ------------------------------------------------------------------ isolation, unknown ids


async def test_other_teams_webhooks_are_404_and_untouched(api: Api, other_api: Api) -> None:
    created = await create(
        api, name="mine", custom_webhook_template_attributes={"body_template": "x"}
    )
    path = f"{BASE}/{created['id']}"
    before = (await api.get(path)).json()
    message = f"Resource type outgoing_webhook with id = {created['id']} was not found"

    for response in (
        await other_api.get(path),
        await other_api.patch(path, {"name": "stolen"}),
        await other_api.patch(path, {"custom_webhook_template_attributes": None}),
        await other_api.delete(path),
    ):
        assert response.status_code == 404, response.text
        assert response.json() == {"errors": message}

    listed = (await other_api.get(BASE)).json()
    assert listed["data"] == [] and listed["included"] == []
    assert (await api.get(path)).json() == before


async def test_other_teams_list_only_their_own(api: Api, other_api: Api) -> None:
    await create(api, name="acme hook")
    theirs = await create(other_api, name="globex hook")
    listed = (await other_api.get(BASE)).json()["data"]
    assert [item["id"] for item in listed] == [theirs["id"]]
    assert listed[0]["attributes"]["team_name"] == "globex"


@pytest.mark.parametrize("raw_id", ["999999", "abc", "1.5", "-1"])
async def test_unknown_ids_are_404_on_every_route(api: Api, raw_id: str) -> None:
    path = f"{BASE}/{raw_id}"
    message = f"Resource type outgoing_webhook with id = {raw_id} was not found"
    for response in (
        await api.get(path),
        await api.patch(path, {"name": "x"}),
        await api.delete(path),
    ):
        assert response.status_code == 404
        assert response.json() == {"errors": message}


async def test_every_route_needs_a_token(client: httpx.AsyncClient) -> None:
    for method, path in (
        ("GET", BASE),
        ("POST", BASE),
        ("GET", f"{BASE}/1"),
        ("PATCH", f"{BASE}/1"),
        ("DELETE", f"{BASE}/1"),
    ):
        assert (await client.request(method, path)).status_code == 401


async def test_openapi_describes_relationships_and_included(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    get_op = spec["paths"][f"{BASE}/{{outgoing_webhook_id}}"]["get"]
    ref = get_op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    document = schemas[ref.rsplit("/", 1)[1]]
    assert set(document["required"]) == {"data", "included"}
    assert "custom_webhook_template" in schemas["WebhookRelationships"]["properties"]
    assert "auth_password" not in schemas["WebhookTemplateAttributes"]["properties"]
    post_op = spec["paths"][BASE]["post"]
    request = post_op["requestBody"]["content"]["application/json"]["schema"]
    assert set(request["required"]) == {"url", "trigger_type"}
    for trigger_type in TRIGGER_TYPES:
        assert trigger_type in post_op["description"]


async def test_openapi_refs_all_resolve(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    text = json.dumps(spec["paths"])
    refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', text))
    assert refs <= set(spec["components"]["schemas"])
    template = spec["paths"][BASE]["post"]["requestBody"]["content"]["application/json"]
    nested = template["schema"]["properties"]["custom_webhook_template_attributes"]
    assert "http_method" in json.dumps(nested)
