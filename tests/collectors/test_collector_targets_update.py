"""Changing, reading and deleting collector targets; a collector's delete takes its targets."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from tests.factories.api import TEST_API_KEY, TEST_PASSWORD, Api, data, errors
from tests.factories.objects import TARGET_VALUES, create_collector, create_target, target_body
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.target_kinds import KIND_RULES, KINDS
from watchpost.destinations import SECRET_RULES

# A second valid value for every field, to prove a change is a change.
OTHER_VALUES: dict[str, Any] = {
    "host": "10.9.9.9",
    "port": 6000,
    "service": "web-2",
    "listen_ip": "10.0.0.8",
    "endpoint": "https://prometheus.internal/federate",
    "username": "someone-else",
    "password": TEST_PASSWORD + "-2",
    "api_key": TEST_API_KEY + "-2",
    "ssl_mode": "verify-ca",
    "tls": "preferred",
    "scheme": "http",
}


async def set_probe_state(app: FastAPI, target_id: str, status: str = "up") -> None:
    """What a probe would do: mark the target as checked (there is no API for that)."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        await session.execute(
            update(CollectorTarget)
            .where(CollectorTarget.id == int(target_id))
            .values(status=status, consecutive_failure_count=3)
        )


async def new_target(api: Api, kind: str = "postgres", **overrides: Any) -> tuple[str, str]:
    """(target URL, collector id) of a fresh target with all its kind's optional fields."""
    owner = await create_collector(api)
    target = await create_target(api, owner["id"], target_body(kind, optional=True, **overrides))
    return f"/api/v1/collectors/{owner['id']}/targets/{target['id']}", owner["id"]


def target_id(url: str) -> str:
    return url.rsplit("/", 1)[1]


@pytest.mark.parametrize("kind", KINDS)
async def test_changing_a_connection_field_sends_the_target_back_to_pending(
    api: Api, app: FastAPI, kind: str
) -> None:
    url, _ = await new_target(api, kind)
    accepted = KIND_RULES[kind].accepted
    misses = []
    for name in ("host", *accepted):
        await set_probe_state(app, target_id(url))
        body = {name: OTHER_VALUES[name]}
        if name in SECRET_RULES["collector_target"].destination:
            # A new destination takes the stored secrets again (test_hardening_secrets.py).
            body.update(
                {key: OTHER_VALUES[key] for key in ("password", "api_key") if key in accepted}
            )
        response = await api.patch(url, body)
        attributes = data(response)["attributes"]
        if attributes["status"] != "pending" or attributes["consecutive_failure_count"] != 0:
            misses.append(f"{name}: {attributes['status']}")
        if name in TARGET_VALUES and name not in ("password", "api_key"):
            assert attributes[name] == OTHER_VALUES[name]
    assert not misses, misses


async def test_sending_unchanged_values_keeps_the_status(api: Api, app: FastAPI) -> None:
    url, _ = await new_target(api, "postgres")
    await set_probe_state(app, target_id(url))
    for body in ({}, {"enabled": True}, {"host": TARGET_VALUES["host"], "port": 5432}):
        attributes = data(await api.patch(url, body))["attributes"]
        assert attributes["status"] == "up", body
        assert attributes["consecutive_failure_count"] == 3


async def test_disable_and_enable(api: Api, app: FastAPI) -> None:
    url, _ = await new_target(api, "redis")
    await set_probe_state(app, target_id(url))
    attributes = data(await api.patch(url, {"enabled": False}))["attributes"]
    assert (attributes["enabled"], attributes["status"]) == (False, "disabled")
    body = {"host": "other.internal", "password": TEST_PASSWORD}  # a new destination: resent
    attributes = data(await api.patch(url, body))["attributes"]
    assert attributes["status"] == "disabled", "a connection change does not enable"
    assert data(await api.get(url))["attributes"]["status"] == "disabled"
    attributes = data(await api.patch(url, {"enabled": True}))["attributes"]
    assert (attributes["enabled"], attributes["status"]) == (True, "pending")


async def test_kind_cannot_change(api: Api) -> None:
    url, _ = await new_target(api, "postgres")
    messages, fields = errors(await api.patch(url, {"kind": "mysql", "tls": "true"}))
    assert "kind" in fields
    assert any("kind cannot be changed" in message for message in messages)
    assert data(await api.get(url))["attributes"]["kind"] == "postgres"
    data(await api.patch(url, {"kind": "postgres"}))


async def test_rules_apply_to_the_merged_target(api: Api) -> None:
    url, _ = await new_target(api, "postgres")
    before = data(await api.get(url))
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({"ssl_mode": None}, ["ssl_mode"]),
        ({"ssl_mode": ""}, ["ssl_mode"]),
        ({"port": None}, ["port"]),
        ({"host": None}, ["host"]),
        ({"host": ""}, ["host"]),
        ({"tls": "true"}, ["tls"]),
        ({"service": "x", "api_key": TEST_API_KEY}, ["service", "api_key"]),
        ({"port": "5432"}, ["port"]),
        ({"port": 70000, "ssl_mode": "bogus"}, ["port", "ssl_mode"]),
        ({"enabled": None}, ["enabled"]),
        ({"kind": None}, ["kind"]),
        ({"status": "up"}, ["status"]),
        ({"kind": "oracle"}, ["kind"]),
    ]
    misses = []
    for body, expected in cases:
        response = await api.patch(url, body)
        got = errors(response)[1] if response.status_code == 422 else response.status_code
        if got != expected:
            misses.append(f"{body}: expected {expected}, got {got}")
    assert not misses, "\n".join(misses)
    assert data(await api.get(url)) == before


async def test_optional_fields_can_be_cleared(api: Api) -> None:
    url, _ = await new_target(api, "nginx")
    attributes = data(await api.patch(url, {"port": None, "listen_ip": None}))["attributes"]
    assert attributes["port"] is None and attributes["listen_ip"] is None


async def test_a_field_that_became_required_by_nothing_stays_rejected(api: Api) -> None:
    url, _ = await new_target(api, "prometheus")
    _, fields = errors(await api.patch(url, {"endpoint": None}))
    assert fields == ["endpoint"]
    _, fields = errors(await api.patch(url, {"port": 9090}))
    assert fields == ["port"]


async def test_elasticsearch_scheme_cleared_falls_back_to_http(api: Api) -> None:
    url, _ = await new_target(api, "elasticsearch")
    assert data(await api.get(url))["attributes"]["scheme"] == "https"
    # http is a new destination for the credentials: they are sent again.
    body = {"scheme": None, "password": TEST_PASSWORD, "api_key": TEST_API_KEY}
    assert data(await api.patch(url, body))["attributes"]["scheme"] == "http"


async def test_update_moves_updated_at_only(api: Api, clock: FrozenClock) -> None:
    url, _ = await new_target(api, "redis")
    before = data(await api.get(url))["attributes"]
    clock.advance(90.5)
    after = data(await api.patch(url, {"port": 6380, "password": TEST_PASSWORD}))["attributes"]
    assert after["created_at"] == before["created_at"]
    assert after["updated_at"] == isoformat_ms(clock.now()) != before["updated_at"]


# --------------------------------------------------------------- get, list, delete


async def test_get_list_and_delete(api: Api) -> None:
    owner = await create_collector(api)
    base = f"/api/v1/collectors/{owner['id']}/targets"
    created = [await create_target(api, owner["id"], target_body(kind)) for kind in KINDS]
    for item in created:
        assert data(await api.get(f"{base}/{item['id']}")) == item
    listed = (await api.get(base)).json()
    assert listed["data"] == created
    assert [int(item["id"]) for item in listed["data"]] == sorted(int(i["id"]) for i in created)

    gone = created[3]["id"]
    response = await api.delete(f"{base}/{gone}")
    assert response.status_code == 204 and response.content == b""
    missing = await api.get(f"{base}/{gone}")
    assert missing.status_code == 404
    assert missing.json() == {
        "errors": f"Resource type collector_target with id = {gone} was not found"
    }
    assert (await api.delete(f"{base}/{gone}")).status_code == 404
    assert [item["id"] for item in (await api.get(base)).json()["data"]] == [
        item["id"] for item in created if item["id"] != gone
    ]


async def test_a_target_is_only_found_under_its_own_collector(api: Api) -> None:
    url, _ = await new_target(api, "redis")
    other = await create_collector(api)
    wrong = f"/api/v1/collectors/{other['id']}/targets/{target_id(url)}"
    before = data(await api.get(url))
    for response in (
        await api.get(wrong),
        await api.patch(wrong, {"port": 1}),
        await api.delete(wrong),
    ):
        assert response.status_code == 404
    assert data(await api.get(url)) == before


async def test_targets_of_an_unknown_collector_are_404(api: Api) -> None:
    for response in (
        await api.get("/api/v1/collectors/424242/targets"),
        await api.get("/api/v1/collectors/424242/targets/1"),
    ):
        assert response.status_code == 404
        assert set(response.json()) == {"errors"}
        assert response.json()["errors"].endswith("was not found")


async def test_deleting_a_collector_deletes_its_targets(api: Api, app: FastAPI) -> None:
    url, collector_id = await new_target(api, "postgres")
    keep_url, keep_collector = await new_target(api, "redis")
    assert (await api.delete(f"/api/v1/collectors/{collector_id}")).status_code == 204
    assert (await api.get(url)).status_code == 404
    assert (await api.get(f"/api/v1/collectors/{collector_id}/targets")).status_code == 404
    async with app.state.ctx.db.read_sessions() as session:
        left = await session.scalar(
            select(func.count())
            .select_from(CollectorTarget)
            .where(CollectorTarget.collector_id == int(collector_id))
        )
    assert left == 0
    assert data(await api.get(keep_url))["attributes"]["kind"] == "redis"
    assert keep_collector != collector_id
