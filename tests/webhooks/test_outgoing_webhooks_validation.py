"""Outgoing webhooks: what a create or a PATCH rejects, every problem reported at once."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import Api, data, errors
from watchpost.webhooks.triggers import INCIDENT_FLAGS, TRIGGER_RULES, TRIGGER_TYPES

BASE = "/api/v2/outgoing-webhooks"
URL = "https://hooks.example.com/watchpost"


async def create(api: Api, **attributes: Any) -> dict[str, Any]:
    """The created webhook as GET shows it (the signing key is only in the create response)."""
    body = {"url": URL, "trigger_type": "on_call_change", **attributes}
    created = data(await api.post(BASE, body), 201)
    assert created["attributes"].pop("signing_secret").startswith("whsec_")
    return created


async def test_url_and_trigger_type_are_required_and_both_reported(api: Api) -> None:
    messages, fields = errors(await api.post(BASE, {"name": "x"}))
    assert fields == ["url", "trigger_type"]
    assert messages == ["url is required", "trigger_type is required"]


@pytest.mark.parametrize(
    "url",
    ["hooks.example.com/x", "ftp://hooks.example.com/x", "https://", "", "http://bad host/", 42],
)
async def test_url_must_be_an_absolute_http_url(api: Api, url: object) -> None:
    _, fields = errors(await api.post(BASE, {"url": url, "trigger_type": "monitor_change"}))
    assert fields == ["url"]


@pytest.mark.parametrize("trigger_type", ["incident", "INCIDENT_CHANGE", "", None, 1])
async def test_trigger_type_must_be_a_known_value(api: Api, trigger_type: object) -> None:
    messages, fields = errors(await api.post(BASE, {"url": URL, "trigger_type": trigger_type}))
    assert fields == ["trigger_type"]
    if isinstance(trigger_type, str):
        assert all(value in messages[0] for value in TRIGGER_TYPES)


@pytest.mark.parametrize(
    "trigger_type", [name for name, rule in TRIGGER_RULES.items() if not rule.accepted]
)
async def test_incident_flags_with_another_trigger_type_are_named(
    api: Api, trigger_type: str
) -> None:
    body = {"url": URL, "trigger_type": trigger_type, **dict.fromkeys(INCIDENT_FLAGS, False)}
    messages, fields = errors(await api.post(BASE, body))
    assert fields == list(INCIDENT_FLAGS)
    assert all(f"does not apply to {trigger_type} webhooks" in m for m in messages)


async def test_null_incident_flags_count_as_not_sent(api: Api) -> None:
    created = await create(api, trigger_type="monitor_change", on_incident_started=None)
    assert "on_incident_started" not in created["attributes"]


async def test_incident_flags_must_be_booleans(api: Api) -> None:
    body = {"url": URL, "trigger_type": "incident_change", "on_incident_started": "true"}
    _, fields = errors(await api.post(BASE, body))
    assert fields == ["on_incident_started"]


async def test_unknown_fields_are_rejected(api: Api) -> None:
    body = {"url": URL, "trigger_type": "on_call_change", "events": ["x"], "auth_password": "y"}
    messages, fields = errors(await api.post(BASE, body))
    assert fields == ["events", "auth_password"]
    assert "events is not a known attribute" in messages


async def test_blank_name_is_rejected(api: Api) -> None:
    _, fields = errors(
        await api.post(BASE, {"url": URL, "trigger_type": "on_call_change", "name": " "})
    )
    assert fields == ["name"]


async def test_team_name_of_another_team_is_rejected(api: Api) -> None:
    body = {"url": URL, "trigger_type": "on_call_change", "team_name": "globex"}
    _, fields = errors(await api.post(BASE, body))
    assert fields == ["team_name"]


async def test_every_problem_is_reported_at_once(api: Api) -> None:
    body = {
        "url": "nope",
        "trigger_type": "monitor_change",
        "on_incident_resolved": True,
        "custom_webhook_template_attributes": {"http_method": "delete"},
        "colour": "red",
    }
    _, fields = errors(await api.post(BASE, body))
    assert set(fields) == {
        "url",
        "on_incident_resolved",
        "custom_webhook_template_attributes",
        "colour",
    }


async def test_body_must_be_json(api: Api) -> None:
    response = await api.client.post(
        BASE, content=b"url=x", headers={**api.headers, "Content-Type": "text/plain"}
    )
    assert response.status_code == 415


# ------------------------------------------------------------------------------- PATCH


@pytest.mark.parametrize("trigger_type", TRIGGER_TYPES)
async def test_trigger_type_is_fixed_after_creation(api: Api, trigger_type: str) -> None:
    created = await create(api, trigger_type=trigger_type)
    other = next(t for t in TRIGGER_TYPES if t != trigger_type)
    messages, fields = errors(await api.patch(f"{BASE}/{created['id']}", {"trigger_type": other}))
    assert fields == ["trigger_type"]
    assert messages == [f"trigger_type cannot be changed (this webhook is {trigger_type})"]
    assert data(await api.get(f"{BASE}/{created['id']}")) == created


@pytest.mark.parametrize("field", ["name", "url", "trigger_type", "on_incident_started"])
async def test_patch_null_for_a_required_attribute_is_422(api: Api, field: str) -> None:
    created = await create(api, trigger_type="incident_change")
    messages, fields = errors(await api.patch(f"{BASE}/{created['id']}", {field: None}))
    assert fields == [field]
    assert f"{field} must not be null" in messages


async def test_patch_incident_flags_on_another_trigger_type_is_422(api: Api) -> None:
    created = await create(api, trigger_type="on_call_change")
    _, fields = errors(
        await api.patch(f"{BASE}/{created['id']}", {"on_incident_acknowledged": True})
    )
    assert fields == ["on_incident_acknowledged"]
    assert data(await api.get(f"{BASE}/{created['id']}")) == created


async def test_patch_bad_values_change_nothing(api: Api) -> None:
    created = await create(api, name="keep")
    _, fields = errors(
        await api.patch(f"{BASE}/{created['id']}", {"name": "changed", "url": "mailto:a@b.c"})
    )
    assert fields == ["url"]
    assert data(await api.get(f"{BASE}/{created['id']}")) == created


async def test_patch_unknown_field_is_422(api: Api) -> None:
    created = await create(api)
    _, fields = errors(await api.patch(f"{BASE}/{created['id']}", {"enabled": False}))
    assert fields == ["enabled"]
