from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import TEST_PASSWORD, Api, data
from tests.factories.monitors import MINIMAL, MONITORS, create_monitor, create_monitor_group
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.monitors.types import HTTP_TIMEOUT, NETWORK_TIMEOUT, TYPE_RULES

HTTP_TYPES = [name for name, rule in TYPE_RULES.items() if rule.supported and rule.url == "http"]
NETWORK_TYPES = [name for name, rule in TYPE_RULES.items() if rule.url == "host"]

ATTRIBUTES = {
    "monitor_type",
    "url",
    "pronounceable_name",
    "monitor_group_id",
    "required_keyword",
    "port",
    "http_method",
    "request_body",
    "request_headers",
    "expected_status_codes",
    "follow_redirects",
    "verify_ssl",
    "remember_cookies",
    "auth_username",
    "check_frequency",
    "confirmation_period",
    "recovery_period",
    "request_timeout",
    "ssl_expiration",
    "domain_expiration",
    "regions",
    "locations",
    "confirmation_rule",
    "confirmation_locations",
    "degraded",
    "maintenance_from",
    "maintenance_to",
    "maintenance_timezone",
    "maintenance_days",
    "call",
    "sms",
    "email",
    "push",
    "team_wait",
    "policy_id",
    "paused",
    "status",
    "paused_at",
    "last_checked_at",
    "last_error",
    "team_name",
    "created_at",
    "updated_at",
    "scenario_name",
    "critical_alert",
    "expiration_policy_id",
    "proxy_host",
    "proxy_port",
    "ip_version",
    "playwright_script",
    "environment_variables",
}

COMMON_DEFAULTS: dict[str, Any] = {
    "pronounceable_name": None,
    "monitor_group_id": None,
    "check_frequency": 180,
    "confirmation_period": 0,
    "recovery_period": 180,
    "ssl_expiration": None,
    "domain_expiration": None,
    "regions": ["us", "eu", "as", "au"],
    "maintenance_from": None,
    "maintenance_to": None,
    "maintenance_timezone": "UTC",
    "maintenance_days": [],
    "call": False,
    "sms": False,
    "email": True,
    "push": False,
    "team_wait": None,
    "policy_id": None,
    "paused": False,
    "status": "pending",
    "paused_at": None,
    "last_checked_at": None,
    "last_error": None,
    "team_name": "acme",
}


@pytest.mark.parametrize("monitor_type", sorted(MINIMAL))
async def test_minimal_monitor_of_each_type_has_the_full_shape(
    api: Api, clock: FrozenClock, monitor_type: str
) -> None:
    created = data(await api.post(MONITORS, MINIMAL[monitor_type]), 201)
    assert created["type"] == "monitor"
    assert created["id"].isdigit()
    attributes = created["attributes"]
    assert set(attributes) == ATTRIBUTES
    for name, value in MINIMAL[monitor_type].items():
        if name != "request_headers":
            assert attributes[name] == value, name
    for name, value in COMMON_DEFAULTS.items():
        assert attributes[name] == value, name
    assert attributes["created_at"] == attributes["updated_at"] == isoformat_ms(clock.now())
    fetched = data(await api.get(f"{MONITORS}/{created['id']}"))
    assert fetched == created


async def test_monitor_type_defaults_to_status(api: Api) -> None:
    created = data(await api.post(MONITORS, {"url": "https://example.com"}), 201)
    assert created["attributes"]["monitor_type"] == "status"


@pytest.mark.parametrize("monitor_type", HTTP_TYPES)
async def test_http_defaults(api: Api, monitor_type: str) -> None:
    attributes = (await create_monitor(api, monitor_type))["attributes"]
    assert attributes["http_method"] == "get"
    assert attributes["follow_redirects"] is True
    assert attributes["verify_ssl"] is True
    assert attributes["remember_cookies"] is False
    assert attributes["request_headers"] == []
    assert attributes["request_timeout"] == HTTP_TIMEOUT.default == 30
    assert attributes["port"] is None


@pytest.mark.parametrize("monitor_type", NETWORK_TYPES)
async def test_network_types_have_no_http_settings(api: Api, monitor_type: str) -> None:
    attributes = (await create_monitor(api, monitor_type))["attributes"]
    for name in ("http_method", "follow_redirects", "verify_ssl", "remember_cookies"):
        assert attributes[name] is None, name
    assert attributes["request_headers"] == []
    assert attributes["expected_status_codes"] == []
    assert attributes["request_timeout"] == NETWORK_TIMEOUT.default == 5000


async def test_every_field_is_stored_and_returned(api: Api) -> None:
    group = await create_monitor_group(api)
    body = {
        "monitor_type": "keyword",
        "url": "https://example.com/login",
        "pronounceable_name": "Login page",
        "monitor_group_id": int(group["id"]),
        "required_keyword": "Sign in",
        "http_method": "post",
        "request_body": '{"probe": true}',
        "request_headers": [
            {"name": "Content-Type", "value": "application/json"},
            {"name": "X-Probe", "value": "watchpost"},
        ],
        "follow_redirects": False,
        "verify_ssl": False,
        "remember_cookies": True,
        "auth_username": "probe",
        "auth_password": TEST_PASSWORD,
        "check_frequency": 60,
        "confirmation_period": 120,
        "recovery_period": 0,
        "request_timeout": 15,
        "ssl_expiration": 30,
        "domain_expiration": 60,
        "regions": ["eu", "us"],
        "maintenance_from": "01:00:00",
        "maintenance_to": "02:30",
        "maintenance_timezone": "Europe/Prague",
        "maintenance_days": ["sun", "mon"],
        "call": True,
        "sms": True,
        "email": False,
        "push": True,
        "team_wait": 300,
    }
    attributes = (data(await api.post(MONITORS, body), 201))["attributes"]
    expected = {key: value for key, value in body.items() if key != "auth_password"}
    expected["maintenance_to"] = "02:30:00"
    expected["maintenance_days"] = ["mon", "sun"]
    expected["request_headers"] = [
        {"id": "1", "name": "Content-Type", "value": "application/json"},
        {"id": "2", "name": "X-Probe", "value": "watchpost"},
    ]
    for name, value in expected.items():
        assert attributes[name] == value, name
    assert "auth_password" not in attributes
    assert TEST_PASSWORD not in str(attributes)


async def test_paused_on_creation(api: Api, clock: FrozenClock) -> None:
    attributes = (await create_monitor(api, paused=True))["attributes"]
    assert attributes["paused"] is True
    assert attributes["status"] == "paused"
    assert attributes["paused_at"] == isoformat_ms(clock.now())


async def test_port_is_a_string_and_accepts_a_number(api: Api) -> None:
    assert (await create_monitor(api, "tcp", port="22"))["attributes"]["port"] == "22"
    assert (await create_monitor(api, "tcp", port=22))["attributes"]["port"] == "22"


async def test_next_check_is_due_on_creation(api: Api, app: Any, clock: FrozenClock) -> None:
    from watchpost.monitors.models import Monitor

    created = await create_monitor(api)
    paused = await create_monitor(api, paused=True)
    async with app.state.ctx.db.read_sessions() as session:
        monitor = await session.get(Monitor, int(created["id"]))
        assert monitor is not None and monitor.next_check_at == clock.now()
        idle = await session.get(Monitor, int(paused["id"]))
        assert idle is not None and idle.next_check_at is None


async def test_auth_password_is_stored_encrypted(api: Api, app: Any) -> None:
    from watchpost.monitors.models import Monitor

    created = await create_monitor(api, auth_username="u", auth_password=TEST_PASSWORD)
    async with app.state.ctx.db.read_sessions() as session:
        monitor = await session.get(Monitor, int(created["id"]))
        assert monitor is not None and monitor.auth_password_encrypted is not None
        assert TEST_PASSWORD not in monitor.auth_password_encrypted
        assert app.state.ctx.box.decrypt(monitor.auth_password_encrypted) == TEST_PASSWORD
