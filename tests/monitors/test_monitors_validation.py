from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import TEST_PASSWORD, Api, data, errors
from tests.factories.monitors import MINIMAL, MONITORS, SAMPLE, create_monitor_group
from watchpost.monitors.types import (
    EXPIRATION_DAYS,
    TYPE_FIELDS,
    TYPE_RULES,
)

REQUIRED = [
    (monitor_type, name)
    for monitor_type, rule in TYPE_RULES.items()
    if rule.supported
    for name in rule.required
]
NOT_APPLICABLE = [
    (monitor_type, name)
    for monitor_type, rule in TYPE_RULES.items()
    if rule.supported
    for name in TYPE_FIELDS
    if name not in rule.accepted
]
OPTIONAL = [
    (monitor_type, name)
    for monitor_type, rule in TYPE_RULES.items()
    if rule.supported
    for name in rule.optional
]
PORTS = [(monitor_type, port) for monitor_type, rule in TYPE_RULES.items() for port in rule.ports]


def _without(body: dict[str, Any], name: str) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != name}


def test_table_covers_every_supported_type() -> None:
    assert set(MINIMAL) == {name for name, rule in TYPE_RULES.items() if rule.supported}
    assert REQUIRED and NOT_APPLICABLE and OPTIONAL


@pytest.mark.parametrize(("monitor_type", "name"), REQUIRED)
async def test_each_required_field_missing_is_named(api: Api, monitor_type: str, name: str) -> None:
    messages, fields = errors(await api.post(MONITORS, _without(MINIMAL[monitor_type], name)))
    assert fields == [name]
    assert f"{name} is required for {monitor_type} monitors" in messages


@pytest.mark.parametrize(("monitor_type", "name"), REQUIRED)
async def test_a_blank_required_field_counts_as_missing(
    api: Api, monitor_type: str, name: str
) -> None:
    blank: Any = [] if name == "expected_status_codes" else "  "
    _, fields = errors(await api.post(MONITORS, {**MINIMAL[monitor_type], name: blank}))
    assert fields == [name]


@pytest.mark.parametrize(("monitor_type", "name"), NOT_APPLICABLE)
async def test_each_field_that_does_not_apply_is_named(
    api: Api, monitor_type: str, name: str
) -> None:
    messages, fields = errors(
        await api.post(MONITORS, {**MINIMAL[monitor_type], name: SAMPLE[name]})
    )
    assert fields == [name]
    assert any(f"{name} does not apply to {monitor_type} monitors" in m for m in messages)
    assert TEST_PASSWORD not in str(messages)


@pytest.mark.parametrize(("monitor_type", "name"), OPTIONAL)
async def test_each_optional_field_is_accepted(api: Api, monitor_type: str, name: str) -> None:
    value = SAMPLE[name]
    if name == "request_body" and monitor_type != "dns":
        value = "payload"
    created = data(await api.post(MONITORS, {**MINIMAL[monitor_type], name: value}), 201)
    if name not in ("auth_password", "request_headers"):
        assert created["attributes"][name] == value


async def test_null_for_a_field_that_does_not_apply_is_fine(api: Api) -> None:
    body = {**MINIMAL["ping"], "http_method": None, "request_headers": [], "port": ""}
    data(await api.post(MONITORS, body), 201)


async def test_playwright_takes_a_scenario_name_as_its_url(api: Api) -> None:
    body = {"monitor_type": "playwright", "url": "", "scenario_name": "Checkout"}
    attributes = data(await api.post(MONITORS, body), 201)["attributes"]
    assert attributes["url"] == attributes["scenario_name"] == "Checkout"
    _, fields = errors(
        await api.post(MONITORS, {**body, "url": "Other", "scenario_name": "Checkout"})
    )
    assert fields == ["scenario_name"]
    _, fields = errors(await api.post(MONITORS, {**MINIMAL["status"], "scenario_name": "x"}))
    assert fields == ["scenario_name"]
    _, fields = errors(await api.post(MONITORS, {"monitor_type": "playwright", "url": " "}))
    assert fields == ["url"]


async def test_unknown_monitor_type(api: Api) -> None:
    _, fields = errors(await api.post(MONITORS, {"monitor_type": "ftp", "url": "example.com"}))
    assert fields == ["monitor_type"]


async def test_url_is_required(api: Api) -> None:
    messages, fields = errors(await api.post(MONITORS, {"monitor_type": "ping"}))
    assert fields == ["url"]
    assert messages == ["url is required"]


@pytest.mark.parametrize(
    ("monitor_type", "url"),
    [
        ("status", "example.com"),
        ("status", "ftp://example.com"),
        ("keyword", "https://"),
        ("expected_status_code", "not a url"),
        ("ping", "https://example.com"),
        ("tcp", "example.com:22"),
        ("dns", "bad host!"),
        ("smtp", "mail.example.com/path"),
    ],
)
async def test_url_format_depends_on_the_type(api: Api, monitor_type: str, url: str) -> None:
    messages, fields = errors(await api.post(MONITORS, {**MINIMAL[monitor_type], "url": url}))
    assert fields == ["url"]
    assert monitor_type in messages[0]


@pytest.mark.parametrize("url", ["192.0.2.1", "2001:db8::1", "host-1.example.com"])
async def test_hosts_and_ips_for_network_types(api: Api, url: str) -> None:
    data(await api.post(MONITORS, {**MINIMAL["ping"], "url": url}), 201)


async def test_every_problem_is_reported_at_once(api: Api) -> None:
    body = {
        "monitor_type": "tcp",
        "url": "https://example.com",
        "http_method": "fetch",
        "check_frequency": 5,
        "regions": ["mars"],
        "maintenance_from": "01:00:00",
    }
    _, fields = errors(await api.post(MONITORS, body))
    assert set(fields) == {
        "port",
        "http_method",
        "url",
        "check_frequency",
        "regions",
        "maintenance_to",
    }


async def test_unknown_attribute(api: Api) -> None:
    _, fields = errors(await api.post(MONITORS, {**MINIMAL["status"], "colour": "red"}))
    assert fields == ["colour"]


# ------------------------------------------------------------------------------ timeouts


@pytest.mark.parametrize(
    ("monitor_type", "value", "ok"),
    [
        ("status", 1, True),
        ("status", 60, True),
        ("status", 0, False),
        ("status", 61, False),
        ("keyword", 5000, False),
        ("ping", 100, True),
        ("ping", 60_000, True),
        ("ping", 99, False),
        ("ping", 60_001, False),
        ("tcp", 30, False),
        ("dns", 2000, True),
        ("smtp", 10_000, True),
        ("udp", 500, True),
    ],
)
async def test_request_timeout_unit_and_range_per_type(
    api: Api, monitor_type: str, value: int, ok: bool
) -> None:
    response = await api.post(MONITORS, {**MINIMAL[monitor_type], "request_timeout": value})
    if ok:
        assert data(response, 201)["attributes"]["request_timeout"] == value
    else:
        messages, fields = errors(response)
        assert fields == ["request_timeout"]
        unit = "seconds" if TYPE_RULES[monitor_type].url == "http" else "milliseconds"
        assert unit in messages[0]


async def test_request_timeout_must_be_an_integer(api: Api) -> None:
    _, fields = errors(await api.post(MONITORS, {**MINIMAL["status"], "request_timeout": "30"}))
    assert fields == ["request_timeout"]


# ------------------------------------------------------------------------- ports


@pytest.mark.parametrize(("monitor_type", "port"), PORTS)
async def test_allowed_mail_ports(api: Api, monitor_type: str, port: int) -> None:
    created = data(await api.post(MONITORS, {**MINIMAL[monitor_type], "port": str(port)}), 201)
    assert created["attributes"]["port"] == str(port)


@pytest.mark.parametrize(
    ("monitor_type", "port"), [("smtp", "110"), ("pop", "25"), ("imap", "995"), ("smtp", "2525")]
)
async def test_other_mail_ports_are_refused(api: Api, monitor_type: str, port: str) -> None:
    messages, fields = errors(await api.post(MONITORS, {**MINIMAL[monitor_type], "port": port}))
    assert fields == ["port"]
    allowed = ", ".join(str(p) for p in TYPE_RULES[monitor_type].ports)
    assert messages == [
        f"port must be one of {allowed}, or several of them separated by commas, "
        f"for {monitor_type} monitors"
    ]


@pytest.mark.parametrize("port", ["0", "65536", "http", "-1", True, 22.5])
async def test_port_must_be_a_port_number(api: Api, port: Any) -> None:
    _, fields = errors(await api.post(MONITORS, {**MINIMAL["tcp"], "port": port}))
    assert fields == ["port"]


@pytest.mark.parametrize("port", ["1", "65535", "8080"])
async def test_tcp_takes_any_port(api: Api, port: str) -> None:
    data(await api.post(MONITORS, {**MINIMAL["tcp"], "port": port}), 201)


# -------------------------------------------------------------------- expirations


@pytest.mark.parametrize("days", EXPIRATION_DAYS)
async def test_expiration_days(api: Api, days: int) -> None:
    body = {**MINIMAL["status"], "ssl_expiration": days, "domain_expiration": days}
    attributes = data(await api.post(MONITORS, body), 201)["attributes"]
    assert attributes["ssl_expiration"] == attributes["domain_expiration"] == days


@pytest.mark.parametrize("days", [0, 4, 5, 90, "7"])
async def test_other_expiration_days_are_refused(api: Api, days: Any) -> None:
    body = {**MINIMAL["status"], "ssl_expiration": days, "domain_expiration": days}
    _, fields = errors(await api.post(MONITORS, body))
    assert set(fields) == {"ssl_expiration", "domain_expiration"}


async def test_ssl_expiration_needs_https(api: Api) -> None:
    body = {**MINIMAL["status"], "url": "http://example.com", "ssl_expiration": 7}
    messages, fields = errors(await api.post(MONITORS, body))
    assert fields == ["ssl_expiration"]
    assert "https" in messages[0]


async def test_domain_expiration_needs_a_domain(api: Api) -> None:
    body = {**MINIMAL["ping"], "url": "192.0.2.1", "domain_expiration": 7}
    _, fields = errors(await api.post(MONITORS, body))
    assert fields == ["domain_expiration"]
    data(await api.post(MONITORS, {**MINIMAL["ping"], "domain_expiration": 7}), 201)


# ----------------------------------------------------------------- other fields


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("check_frequency", 29),
        ("check_frequency", 86_401),
        ("check_frequency", "180"),
        ("confirmation_period", -1),
        ("confirmation_period", 86_401),
        ("recovery_period", -1),
        ("regions", []),
        ("regions", ["eu", "eu"]),
        ("regions", ["mars"]),
        ("http_method", "delete"),
        ("http_method", "FETCH"),
        ("expected_status_codes", [99]),
        ("expected_status_codes", [600]),
        ("expected_status_codes", ["200"]),
        ("request_headers", [{"name": "bad name", "value": "x"}]),
        ("request_headers", [{"name": "X", "value": "x", "extra": 1}]),
        ("request_headers", [{"id": "1", "name": "X", "value": "x"}]),
        # a line break would end the header and let the value write headers of its own
        ("request_headers", [{"name": "X", "value": "a\r\nX-Injected: 1"}]),
        ("request_headers", [{"name": "X", "value": "a\nb"}]),
        ("request_headers", [{"name": "X", "value": "a\x00b"}]),
        ("follow_redirects", "yes"),
        ("paused", 1),
        ("team_wait", -1),
        ("maintenance_days", ["funday"]),
        ("maintenance_timezone", "Mars/Base"),
        ("pronounceable_name", "x" * 256),
        ("monitor_group_id", "1"),
    ],
)
async def test_invalid_values(api: Api, name: str, value: Any) -> None:
    monitor_type = "expected_status_code" if name == "expected_status_codes" else "status"
    body = {**MINIMAL[monitor_type], name: value}
    _, fields = errors(await api.post(MONITORS, body))
    assert name in fields


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("check_frequency", 30),
        ("check_frequency", 86_400),
        ("confirmation_period", 0),
        ("recovery_period", 86_400),
    ],
)
async def test_range_bounds_are_accepted(api: Api, name: str, value: int) -> None:
    created = data(await api.post(MONITORS, {**MINIMAL["status"], name: value}), 201)
    assert created["attributes"][name] == value


async def test_dns_request_body_is_a_domain_name(api: Api) -> None:
    _, fields = errors(await api.post(MONITORS, {**MINIMAL["dns"], "request_body": "not a name"}))
    assert fields == ["request_body"]


async def test_monitor_group_of_another_team_is_refused(api: Api, other_api: Api) -> None:
    theirs = await create_monitor_group(other_api)
    messages, fields = errors(
        await api.post(MONITORS, {**MINIMAL["status"], "monitor_group_id": int(theirs["id"])})
    )
    assert fields == ["monitor_group_id"]
    assert messages == [f"monitor_group_id {theirs['id']} is not a monitor group of this team"]
    _, fields = errors(await api.post(MONITORS, {**MINIMAL["status"], "monitor_group_id": 999}))
    assert fields == ["monitor_group_id"]


async def test_auth_password_never_echoed_in_errors(api: Api) -> None:
    body = {**MINIMAL["ping"], "auth_password": TEST_PASSWORD}
    response = await api.post(MONITORS, body)
    errors(response)
    assert TEST_PASSWORD not in response.text
