"""Incoming webhooks (the hosted API's /api/v2/incoming-webhooks): the objects as its
Terraform provider sends and reads them, and the public URL whose requests start,
acknowledge and resolve incidents by the webhook's rules."""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.conftest import make_api
from tests.factories.api import Api, data, errors
from tests.factories.processes import uvicorn_thread
from tests.http.test_rate_limits import assert_limited, limit
from watchpost.app import create_app
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.http.logs import MASK
from watchpost.incoming import matching, receiving
from watchpost.settings import Settings
from watchpost.teams.service import create_token

URL = "/api/v2/incoming-webhooks"
INCIDENTS = "/api/v2/incidents"
RECEIVE = "/api/v1/incoming-webhook/"


def _rule(target: str, field: str | None, match: str, content: str) -> dict[str, Any]:
    rule: dict[str, Any] = {"rule_target": target, "match_type": match, "content": content}
    if field is not None:
        rule["target_field"] = field
    return rule


def _full(rule: dict[str, Any]) -> dict[str, Any]:
    """A rule as read back: every attribute, null where not sent."""
    return {"target_field": None, "content": None, **rule}


def _full_field(spec: dict[str, Any]) -> dict[str, Any]:
    names = ("name", "special_type", "target_field", "content", "content_before", "content_after")
    return {**dict.fromkeys(names), **spec}


STATUS = "incident.status"
ALERT_ID = {
    "name": "Alert ID",
    "special_type": "alert_id",
    "field_target": "json",
    "target_field": "incident.id",
    "match_type": "match_between",
    "content_before": "<",
    "content_after": "-",
}
# The provider's acceptance test, step 1, as its JSON encoding sends it (omitempty; the
# title_field always).
STEP_1: dict[str, Any] = {
    "name": "Terraform Test",
    "call": False,
    "sms": False,
    "email": True,
    "push": True,
    "critical_alert": True,
    "team_wait": 180,
    "recovery_period": 0,
    "paused": False,
    "started_rule_type": "any",
    "acknowledged_rule_type": "unused",
    "resolved_rule_type": "all",
    "started_rules": [
        _rule("json", STATUS, "contains", "alert"),
        _rule("json", STATUS, "contains", "reminder"),
    ],
    "resolved_rules": [_rule("json", STATUS, "contains", "resolved")],
    "cause_field": {
        "field_target": "json",
        "target_field": STATUS,
        "match_type": "match_everything",
        "content": "title",
    },
    "title_field": {
        "field_target": "json",
        "target_field": "incident.title",
        "match_type": "match_everything",
        "content": "title",
    },
    "started_alert_id_field": ALERT_ID,
    "resolved_alert_id_field": ALERT_ID,
    "other_started_fields": [
        {
            "name": "Caused by",
            "field_target": "json",
            "target_field": "incident.description",
            "match_type": "match_between",
            "content_before": ",",
            "content_after": "by:",
        },
        {
            "name": "Description",
            "field_target": "json",
            "target_field": "incident.description",
            "match_type": "match_between",
            "content_before": ",",
            "content_after": "description:",
        },
    ],
}
STEP_2 = {
    "name": "Terraform Test - Updated",
    "team_wait": 0,
    "recovery_period": 180,
    "paused": True,
    "title_field": None,
}


def _expected(sent: dict[str, Any]) -> dict[str, Any]:
    """What the API shows for a body: rules and fields with every attribute."""
    shown = dict(sent)
    for name in ("started_rules", "acknowledged_rules", "resolved_rules"):
        shown[name] = [_full(rule) for rule in sent.get(name, [])]
    for name in ("other_started_fields", "other_acknowledged_fields", "other_resolved_fields"):
        shown[name] = [_full_field(spec) for spec in sent.get(name, [])]
    for name in (
        "cause_field",
        "title_field",
        "started_alert_id_field",
        "acknowledged_alert_id_field",
        "resolved_alert_id_field",
    ):
        spec = sent.get(name)
        shown[name] = None if spec is None else _full_field(spec)
    return shown


def _subset(attributes: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    return {name: attributes[name] for name in expected}


async def test_the_terraform_providers_requests_read_back_as_sent(api: Api) -> None:
    created = data(await api.post(URL, STEP_1), 201)
    assert created["type"] == "incoming_webhook"
    attributes = created["attributes"]
    assert _subset(attributes, _expected(STEP_1)) == _expected(STEP_1)
    assert attributes["team_name"] == "acme" and attributes["policy_id"] is None
    assert attributes["url"].startswith("http://testserver/api/v1/incoming-webhook/")
    assert len(attributes["url"].rsplit("/", 1)[1]) >= 32
    assert {attributes[f"sample_{n}"] for n in ("body", "headers", "query_string")} == {None}
    path = f"{URL}/{created['id']}"
    assert data(await api.get(path)) == created

    changed = data(await api.patch(path, STEP_2))["attributes"]
    step_2 = _expected({**STEP_1, **STEP_2})
    assert _subset(changed, step_2) == step_2
    assert changed["url"] == attributes["url"]
    read = data(await api.get(path))["attributes"]
    assert read == changed
    # Step 3: the started rules change (sent whole, as the provider sends a changed list).
    rules = [_rule("json", STATUS, "equals", "firing")]
    changed = data(await api.patch(path, {"started_rules": rules}))["attributes"]
    assert changed["started_rules"] == [_full(rule) for rule in rules]
    assert changed["resolved_rules"] == step_2["resolved_rules"]

    # The data source: a page of them, found by name.
    listed = (await api.get(f"{URL}?page=1")).json()
    assert [item["attributes"]["name"] for item in listed["data"]] == [STEP_2["name"]]
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404


async def test_the_provider_examples_are_accepted(api: Api) -> None:
    policy = data(await api.post("/api/v3/policies", {"name": "On call", "steps": []}), 201)
    simple = {
        "name": "Terraform Minimal Incoming Webhook",
        "call": False,
        "sms": False,
        "email": True,
        "push": True,
        "critical_alert": False,
        "team_wait": 300,
        "started_rule_type": "any",
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
        "started_rules": [{"rule_target": "body", "match_type": "matches_regex", "content": ".*"}],
        "title_field": {
            "name": "Title",
            "special_type": "title",
            "field_target": "body",
            "match_type": "match_everything",
        },
        "cause_field": {
            "name": "Cause",
            "special_type": "cause",
            "field_target": "body",
            "match_type": "match_everything",
        },
    }
    made = data(await api.post(URL, simple), 201)["attributes"]
    assert _subset(made, _expected(simple)) == _expected(simple)
    this = {
        "name": "Terraform Incoming Webhook",
        "recovery_period": 0,
        "paused": False,
        "policy_id": policy["id"],
        "started_rule_type": "any",
        "acknowledged_rule_type": "any",
        "resolved_rule_type": "all",
        "started_rules": [
            _rule("json", STATUS, "contains", "alert"),
            _rule("header", "X-Alert", "matches_regex", "firing"),
        ],
        "acknowledged_rules": [_rule("json", STATUS, "contains", "acknowledged")],
        "resolved_rules": [_rule("json", STATUS, "contains", "resolved")],
        "started_alert_id_field": ALERT_ID,
        "other_started_fields": [
            {
                "name": "Severity",
                "field_target": "query_string",
                "target_field": "severity",
                "match_type": "match_everything",
            }
        ],
        "title_field": None,
    }
    made = data(await api.post(URL, this), 201)["attributes"]
    assert _subset(made, _expected(this)) == _expected(this)
    assert made["policy_id"] == policy["id"]


async def test_bad_bodies_are_422_and_write_nothing(api: Api) -> None:
    base = {
        "started_rule_type": "unused",
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
    }
    bad_rule = [{"rule_target": "json", "match_type": "contains", "content": "x"}]
    for bad in (
        {**base, "started_rule_type": "some"},
        {**base, "started_rule_type": "all"},  # all/any need a rule
        {**base, "started_rules": bad_rule},  # json needs target_field
        {**base, "started_rules": [_rule("subject", None, "contains", "x")]},
        {**base, "started_rules": [_rule("body", None, "matches_regex", "(")]},
        {**base, "cause_field": {"field_target": "body", "match_type": "match_between"}},
        {**base, "url": "https://elsewhere.example"},
        {**base, "policy_id": "999999"},
        {**base, "team_name": "globex"},
        {**base, "team_wait": "60"},
        {**base, "started_rules": [_rule("body", None, "contains", "x")] * 51},
    ):
        errors(await api.post(URL, bad))
    assert (await api.get(URL)).json()["data"] == []
    made = data(await api.post(URL, base), 201)
    path = f"{URL}/{made['id']}"
    _, fields = errors(await api.patch(path, {"paused": None}))
    assert fields == ["paused"]
    errors(await api.patch(path, {"resolved_rule_type": "any"}))
    assert data(await api.get(path)) == made


async def test_the_rule_types_default_to_unused(api: Api, client: httpx.AsyncClient) -> None:
    made = data(await api.post(URL, {"name": "Bare"}), 201)
    shown = made["attributes"]
    assert [shown[f"{stage}_rule_type"] for stage in ("started", "acknowledged", "resolved")] == [
        "unused"
    ] * 3
    # As documented for `unused` started rules: any request starts an incident.
    url = shown["url"].removeprefix("http://testserver")
    assert await _send(client, url, content=b"anything") == "started"


async def test_patterns_re2_cannot_run_are_422_naming_the_field(api: Api) -> None:
    backreference = _rule("body", None, "matches_regex", r"(a)\1")
    _, fields = errors(
        await api.post(URL, {"started_rule_type": "any", "started_rules": [backreference]})
    )
    assert fields == ["started_rules"]
    made = data(await api.post(URL, {"name": "Patterns"}), 201)
    path = f"{URL}/{made['id']}"
    lookahead = {"field_target": "body", "match_type": "match_regex", "content": "x(?=y)"}
    messages, fields = errors(await api.patch(path, {"other_started_fields": [lookahead]}))
    assert fields == ["other_started_fields"]
    assert "RE2" in messages[0] and "lookaround" in messages[0], messages
    messages, fields = errors(await api.patch(path, {"resolved_rules": [backreference]}))
    assert fields == ["resolved_rules"] and "backreferences" in messages[0], messages
    huge = _rule("body", None, "matches_regex", "x{1000}")
    messages, fields = errors(await api.patch(path, {"acknowledged_rules": [huge]}))
    assert fields == ["acknowledged_rules"] and "too large" in messages[0], messages
    assert data(await api.get(path)) == made


async def _send(client: httpx.AsyncClient, url: str, **kwargs: Any) -> str:
    response = await client.post(url, **kwargs)
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert isinstance(result, str)
    return result


async def _incidents(api: Api) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = (await api.get(INCIDENTS)).json()["data"]
    return listed


ALERTING = {
    "name": "Alertmanager",
    "started_rule_type": "any",
    "acknowledged_rule_type": "any",
    "resolved_rule_type": "any",
    "started_rules": [
        _rule("json", STATUS, "equals", "firing"),
        _rule("query_string", "state", "equals", "down"),
    ],
    "acknowledged_rules": [_rule("header", "X-Ack", "contains", "yes")],
    "resolved_rules": [_rule("json", STATUS, "equals", "resolved")],
    "title_field": {
        "field_target": "json",
        "target_field": "incident.title",
        "match_type": "match_everything",
    },
    "cause_field": {
        "field_target": "json",
        "target_field": "incident.description",
        "match_type": "match_after",
        "content": "because:",
    },
    "started_alert_id_field": {**ALERT_ID, "match_type": "match_everything"},
    "resolved_alert_id_field": {**ALERT_ID, "match_type": "match_everything"},
    "other_started_fields": [
        {
            "name": "Severity",
            "field_target": "query_string",
            "target_field": "severity",
            "match_type": "match_everything",
        }
    ],
}


async def test_requests_start_acknowledge_and_resolve_one_incident(
    api: Api, client: httpx.AsyncClient
) -> None:
    made = data(await api.post(URL, {**ALERTING, "call": True, "email": False}), 201)
    url = made["attributes"]["url"].removeprefix("http://testserver")
    # Nothing matches: ignored, no incident.
    assert await _send(client, url, json={"incident": {"status": "ok"}}) == "ignored"
    assert await _incidents(api) == []
    firing = {
        "incident": {
            "status": "firing",
            "title": "DB down",
            "id": "a-1",
            "description": "because: disk full",
        }
    }
    assert await _send(client, f"{url}?severity=high", json=firing) == "started"
    (incident,) = await _incidents(api)
    attributes = incident["attributes"]
    assert (attributes["name"], attributes["cause"]) == ("DB down", "disk full")
    assert attributes["metadata"] == {"Alert ID": ["a-1"], "Severity": ["high"]}
    assert (attributes["call"], attributes["email"], attributes["status"]) == (
        True,
        False,
        "started",
    )
    # One open incident: a second start (here by the query string rule) changes nothing.
    assert await _send(client, f"{url}?state=down", content=b"not json") == "ignored"
    assert len(await _incidents(api)) == 1
    assert await _send(client, url, headers={"X-Ack": "yes"}) == "acknowledged"
    assert (await _incidents(api))[0]["attributes"]["status"] == "acknowledged"
    # Another alert's resolution leaves this one open.
    other = {"incident": {"status": "resolved", "id": "b-2"}}
    assert await _send(client, url, json=other) == "ignored"
    resolved = {"incident": {"status": "resolved", "id": "a-1"}}
    assert await _send(client, url, json=resolved) == "resolved"
    (incident,) = await _incidents(api)
    assert incident["attributes"]["status"] == "resolved"
    assert incident["attributes"]["resolved_by"] == "Alertmanager"
    # A resolution with nothing open starts nothing.
    assert await _send(client, url, json=resolved) == "ignored"
    # The last request is the sample, credentials left out.
    shown = data(await api.get(f"{URL}/{made['id']}"))["attributes"]
    assert shown["sample_body"] == '{"incident":{"status":"resolved","id":"a-1"}}'
    assert "authorization" not in shown["sample_headers"].lower()
    # A paused webhook ignores requests.
    await api.patch(f"{URL}/{made['id']}", {"paused": True})
    assert await _send(client, url, json=firing) == "ignored"
    assert len(await _incidents(api)) == 1


async def test_unused_started_rules_start_on_any_request_and_delete_resolves(
    api: Api, client: httpx.AsyncClient
) -> None:
    body = {
        "started_rule_type": "unused",
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
    }
    made = data(await api.post(URL, body), 201)
    url = made["attributes"]["url"].removeprefix("http://testserver")
    assert (await client.get(url)).json() == {"result": "started"}
    (incident,) = await _incidents(api)
    assert incident["attributes"]["name"] == "Incoming webhook"
    assert (await api.delete(f"{URL}/{made['id']}")).status_code == 204
    (incident,) = await _incidents(api)
    assert incident["attributes"]["status"] == "resolved"
    response = await client.post(url, json={})
    assert response.status_code == 404 and response.json() == {
        "errors": "No incoming webhook has this token"
    }


async def test_bad_tokens_and_large_bodies(api: Api, client: httpx.AsyncClient) -> None:
    for token in ("nope", "x" * 65):
        response = await client.post(f"{RECEIVE}{token}", content=b"{}")
        assert response.status_code == 404, response.text
        assert isinstance(response.json()["errors"], str)
    made = data(
        await api.post(
            URL,
            {
                "started_rule_type": "unused",
                "acknowledged_rule_type": "unused",
                "resolved_rule_type": "unused",
            },
        ),
        201,
    )
    url = made["attributes"]["url"].removeprefix("http://testserver")
    response = await client.post(url, content=b"x" * (64 * 1024 + 1))
    assert response.status_code == 413 and "longer" in response.json()["errors"]
    assert await _incidents(api) == []
    # Binary bodies (NUL included, which PostgreSQL text refuses) are kept as text; a query
    # string holding NUL is refused, as on every route (http/nul.py).
    response = await client.post(f"{url}?q=%00", content=b"RIFF")
    assert errors(response) == (["q must not contain NUL characters"], ["q"])
    response = await client.post(f"{url}?q=1", content=b"RIFF\x00\xffWEBP")
    assert response.json() == {"result": "started"}
    shown = data(await api.get(f"{URL}/{made['id']}"))["attributes"]
    assert shown["sample_body"] == "RIFF\ufffd\ufffdWEBP"


async def test_requests_are_rate_limited_per_address(
    app: FastAPI, settings: Settings, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    await limit(app, settings, clock, ping_rate_limit_per_minute=3, rate_limit_per_minute=100)
    api = await make_api(app, client, "acme")
    body = {
        "started_rule_type": "unused",
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
    }
    url = data(await api.post(URL, body), 201)["attributes"]["url"]
    url = url.removeprefix("http://testserver")
    assert (await client.post(url)).status_code == 200
    assert (await client.post(url)).status_code == 200
    assert (await client.post(f"{RECEIVE}guess")).status_code == 404  # guesses count too
    assert_limited(await client.post(url), 20, "3 requests a minute from one address")
    clock.advance(20)
    assert (await client.post(url)).status_code == 200


async def test_another_team_cannot_see_or_change_a_webhook(api: Api, other_api: Api) -> None:
    body = {
        "started_rule_type": "unused",
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
    }
    made = data(await api.post(URL, body), 201)
    path = f"{URL}/{made['id']}"
    assert (await other_api.get(path)).status_code == 404
    assert (await other_api.patch(path, {"name": "mine"})).status_code == 404
    assert (await other_api.delete(path)).status_code == 404
    assert (await other_api.get(URL)).json()["data"] == []
    assert data(await api.get(path)) == made


async def _mint_token(settings: Settings) -> str:
    ctx = AppContext.build(settings)
    try:
        async with ctx.db.write_sessions() as session, session.begin():
            return await create_token(session, team_name="acme", now=ctx.clock.now())
    finally:
        await ctx.db.dispose()


def test_a_real_http_request_starts_an_incident(
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    caplog.set_level(logging.INFO)
    # The access log as a server has it, whatever an earlier test of this process made of it.
    access = logging.getLogger("uvicorn.access")
    monkeypatch.setattr(access, "disabled", False)
    monkeypatch.setattr(access, "propagate", True)
    previous = access.level
    access.setLevel(logging.INFO)  # setLevel also clears the loggers' isEnabledFor cache
    request.addfinalizer(lambda: access.setLevel(previous))
    token = asyncio.run(_mint_token(settings))
    headers = {"Authorization": f"Bearer {token}"}
    with (
        uvicorn_thread(create_app(settings)) as base,
        httpx.Client(base_url=base, timeout=60) as http,
    ):
        made = http.post(URL, json=ALERTING, headers=headers)
        assert made.status_code == 201, made.text
        url = made.json()["data"]["attributes"]["url"]
        assert url.startswith(f"{base}/api/v1/incoming-webhook/")
        firing = {"incident": {"status": "firing", "title": "Queue stuck", "id": "q-9"}}
        assert http.post(url, json=firing).json() == {"result": "started"}
        (incident,) = http.get(INCIDENTS, headers=headers).json()["data"]
        assert incident["attributes"]["name"] == "Queue stuck"
        resolved = {"incident": {"status": "resolved", "id": "q-9"}}
        assert http.post(url, json=resolved).json() == {"result": "resolved"}
    # The server's access log showed the requests, the token masked (httpx: the test's client).
    secret = url.rsplit("/", 1)[1]
    logged = [r.getMessage() for r in caplog.records if not r.name.startswith("httpx")]
    assert any(f"{RECEIVE}{MASK}" in line for line in logged), logged
    assert not any(secret in line for line in logged)


def test_a_redos_body_through_the_public_url_never_holds_the_event_loop(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's pattern and body, sent to a real server: RE2 decides (no match, so the
    request is ignored; 28 a's alone start an incident), and while a request's matching is
    held on its thread, /healthz answers: matching never runs on the event loop."""
    entered, release = threading.Event(), threading.Event()
    real_judge = matching.judge

    def held_judge(*args: Any) -> Any:
        entered.set()
        assert release.wait(timeout=60), "the test never released the match"
        return real_judge(*args)

    token = asyncio.run(_mint_token(settings))
    headers = {"Authorization": f"Bearer {token}"}
    redos = {
        "started_rule_type": "any",
        "started_rules": [_rule("body", None, "matches_regex", "^(a+)+$")],
        "title_field": {"field_target": "body", "match_type": "match_regex", "content": "^(a+)+$"},
    }
    with (
        uvicorn_thread(create_app(settings)) as base,
        httpx.Client(base_url=base, timeout=60) as http,
        ThreadPoolExecutor(1) as sender,
    ):
        made = http.post(URL, json=redos, headers=headers)
        assert made.status_code == 201, made.text
        url = made.json()["data"]["attributes"]["url"]
        monkeypatch.setattr(receiving, "judge", held_judge)
        pending = sender.submit(http.post, url, content=b"a" * 28 + b"!")
        try:
            assert entered.wait(timeout=60), "the request never reached its matching"
            # The match is running (held): the loop still serves everyone else.
            assert http.get("/healthz", timeout=10).json()["status"] == "ok"
        finally:
            release.set()
        assert pending.result().json() == {"result": "ignored"}
        monkeypatch.setattr(receiving, "judge", real_judge)
        assert http.post(url, content=b"a" * 28).json() == {"result": "started"}
        (incident,) = http.get(INCIDENTS, headers=headers).json()["data"]
        assert incident["attributes"]["name"] == "a" * 28
