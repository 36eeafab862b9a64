"""The Terraform provider's monitor and heartbeat requests, replayed on both backends.

Each scenario is a list of configurations of one resource, taken from the provider's
examples (examples/resources/betteruptime_{monitor,heartbeat}) and acceptance tests
(resource_monitor_test.go, resource_heartbeat_test.go): the first is created, each next one
applied as the provider would (its PATCH body), and after every step the resource is read
back as the provider reads it. The read must decode into the provider's Go struct and leave
nothing for `terraform plan` to change: every attribute reads back as it was sent.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import Api, data
from tests.factories.monitors import GROUPS, MONITORS
from tests.hosted_clients.terraform import (
    HEARTBEAT_TYPES,
    MONITOR_TYPES,
    decodable,
    heartbeat_create,
    heartbeat_plan,
    heartbeat_state,
    heartbeat_update,
    monitor_create,
    monitor_plan,
    monitor_state,
    monitor_update,
)

HEARTBEATS = "/api/v2/heartbeats"
HEARTBEAT_GROUPS = "/api/v2/heartbeat-groups"
POLICIES = "/api/v3/policies"
URL = "http://example.com"

PLAYWRIGHT_SCRIPT = """import { test, expect } from '@playwright/test';

test('has title and contact email', async ({ page }) => {
  await page.goto('https://betterstack.com/')
  await expect(page).toHaveTitle(/Better Stack/)
});
"""


def monitor_scenarios(
    policy: int, other_policy: int, group: int
) -> dict[str, list[dict[str, Any]]]:
    """Configurations of betteruptime_monitor, in the order they are applied."""
    status = {"url": URL, "monitor_type": "status"}
    return {
        # TestResourceMonitor
        "pause, rename, method": [
            {**status, "paused": True, "regions": ["us", "eu"]},
            {**status, "pronounceable_name": "override"},
            {**status, "http_method": "POST"},
        ],
        # TestResourceMonitorWithHeaders
        "headers": [
            {**status, "request_headers": [{"name": "X-TEST", "value": "test"}]},
            {
                **status,
                "request_headers": [
                    {"name": "X-TEST", "value": "test"},
                    {"name": "X-TEST-2", "value": "test-2"},
                ],
            },
            {**status, "request_headers": [{"name": "X-TEST-2", "value": "test-2"}]},
        ],
        # TestResourceMonitorWithExpirationPolicyId
        "expiration policy": [
            status,
            {**status, "expiration_policy_id": policy},
            {**status, "expiration_policy_id": None},
            {**status, "expiration_policy_id": other_policy},
            status,
        ],
        # TestResourceMonitorWithVariables
        "playwright variables": [
            {
                "url": URL,
                "monitor_type": "playwright",
                "environment_variables": {"TEST_1": "test-1", "TEST_2": "test-2"},
            },
            {
                "url": URL,
                "monitor_type": "playwright",
                "environment_variables": {"TEST_1": "test-1", "TEST_3": "test-3"},
            },
            {"url": URL, "monitor_type": "playwright", "environment_variables": {}},
        ],
        # TestExpectedStatusCodeMonitor
        "expected status codes": [
            {
                "url": URL,
                "monitor_type": "expected_status_code",
                "expected_status_codes": [500, 501, 502],
                "paused": True,
                "regions": ["us", "eu"],
            }
        ],
        # TestResourceMonitorWithDomainExpiration
        "domain expiration": [
            status,
            {**status, "domain_expiration": 7},
            {**status, "domain_expiration": -1},
            {**status, "domain_expiration": 14},
            status,
        ],
        # TestResourceMonitorWithSSLExpiration (an https URL: Watchpost reads certificates)
        "ssl expiration": [
            {**status, "url": "https://example.com"},
            {**status, "url": "https://example.com", "ssl_expiration": 7},
            {**status, "url": "https://example.com", "ssl_expiration": -1},
            {**status, "url": "https://example.com", "ssl_expiration": 14},
        ],
        # TestResourceMonitorWithDisabledExpirationChecks
        "disabled expirations": [{**status, "ssl_expiration": -1, "domain_expiration": -1}],
        # TestResourceMonitorPlaywrightValidation
        "playwright scenario name": [
            {
                "monitor_type": "playwright",
                "scenario_name": "test-scenario",
                "playwright_script": "console.log('test')",
            }
        ],
        "playwright url": [
            {
                "monitor_type": "playwright",
                "url": "https://example.com",
                "playwright_script": "console.log('test')",
            }
        ],
        # examples/resources/betteruptime_monitor/resource.tf
        "example simple": [{"url": "https://example.com", "monitor_type": "status"}],
        "example expected_status_code": [
            {
                "url": "https://example.com",
                "monitor_type": "expected_status_code",
                "monitor_group_id": group,
                "expected_status_codes": [200, 201, 204],
            }
        ],
        "example keyword": [
            {
                "url": "https://example.com",
                "monitor_type": "keyword",
                "monitor_group_id": group,
                "required_keyword": "Better Stack",
            }
        ],
        "example keyword_absence": [
            {
                "url": "https://example.com",
                "monitor_type": "keyword_absence",
                "monitor_group_id": group,
                "required_keyword": "Error 500",
            }
        ],
        "example ping": [{"url": "example.com", "monitor_type": "ping", "monitor_group_id": group}],
        "example tcp": [
            {"url": "example.com", "monitor_type": "tcp", "monitor_group_id": group, "port": "443"}
        ],
        "example dns": [
            {
                "url": "1.1.1.1",
                "monitor_type": "dns",
                "request_body": "example.com",
                "monitor_group_id": group,
            }
        ],
        "example playwright": [
            {
                "scenario_name": "Better Stack Homepage",
                "monitor_type": "playwright",
                "monitor_group_id": group,
                "playwright_script": PLAYWRIGHT_SCRIPT,
                "request_timeout": 60,
                "environment_variables": {"EMAIL": "hello@betterstack.com"},
            }
        ],
        "example status, then changed": [
            {
                "url": "https://my-happy-cat-domain.com",
                "monitor_type": "status",
                "monitor_group_id": group,
                "expiration_policy_id": policy,
                "domain_expiration": 30,
                "ssl_expiration": 30,
                "proxy_host": "user:pass@proxy.example.com",
                "proxy_port": 8080,
                "check_frequency": 30,
                "confirmation_period": 60,
                "recovery_period": 180,
                "http_method": "POST",
                "request_body": '{"ping":true}',
                "follow_redirects": False,
                "regions": ["us", "eu"],
                "ip_version": "ipv4",
                "request_timeout": 30,
                "pronounceable_name": "Example API",
                "policy_id": str(policy),
                "team_wait": 180,
                "maintenance_from": "01:00:00",
                "maintenance_to": "03:00:00",
                "maintenance_days": ["sat", "sun"],
                "maintenance_timezone": "Berlin",
                "request_headers": [{"name": "X-Source", "value": "terraform"}],
            },
            {
                "url": "https://my-happy-cat-domain.com",
                "monitor_type": "status",
                "monitor_group_id": group,
                "policy_id": str(other_policy),
                "http_method": "patch",
                "ip_version": "ipv6",
                "maintenance_from": "22:00:00",
                "maintenance_to": "02:00:00",
                "maintenance_days": ["fri", "sat"],
                "maintenance_timezone": "Eastern Time (US & Canada)",
                "critical_alert": True,
                "request_headers": [
                    {"name": "X-Source", "value": "terraform"},
                    {"name": "X-Env", "value": "prod"},
                ],
            },
            {"url": "https://my-happy-cat-domain.com", "monitor_type": "status"},
        ],
        "smtp on three ports, then tcp": [
            {"url": "mail.example.com", "monitor_type": "smtp", "port": "25,465,587"},
            {"url": "mail.example.com", "monitor_type": "smtp", "port": "465"},
            {"url": "mail.example.com", "monitor_type": "tcp", "port": "2525"},
        ],
        "team_name on create": [{**status, "team_name": "acme", "critical_alert": True}],
    }


async def _policy(api: Api, name: str) -> int:
    return int(data(await api.post(POLICIES, {"name": name}), 201)["id"])


async def _apply_monitor(api: Api, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Create, read, then apply each next configuration and read again; the bodies sent."""
    config = steps[0]
    sent = [monitor_create(config)]
    created = data(await api.post(MONITORS, sent[0]), 201)
    assert decodable(created["attributes"], MONITOR_TYPES) == []
    path = f"{MONITORS}/{created['id']}"
    state = monitor_state(created["attributes"], config)
    assert monitor_plan(config, state) == {}, (config, created["attributes"])
    for new in steps[1:]:
        sent.append(monitor_update(config, new, state))
        patched = data(await api.patch(path, sent[-1]))
        assert decodable(patched["attributes"], MONITOR_TYPES) == []
        read = data(await api.get(path))
        assert read == patched
        state = monitor_state(read["attributes"], new)
        assert monitor_plan(new, state) == {}, (new, read["attributes"])
        config = new
    # a plan with nothing changed: GET again, no difference
    again = data(await api.get(path))
    assert monitor_plan(config, monitor_state(again["attributes"], config)) == {}
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404
    return sent


@pytest.mark.parametrize(
    "scenario",
    sorted(monitor_scenarios(1, 2, 3)),
)
async def test_monitor_configurations_read_back_as_sent(api: Api, scenario: str) -> None:
    policy, other = await _policy(api, "Primary"), await _policy(api, "Secondary")
    group = int(data(await api.post(GROUPS, {"name": "Production"}), 201)["id"])
    await _apply_monitor(api, monitor_scenarios(policy, other, group)[scenario])


async def test_the_provider_bodies_are_the_ones_its_tests_expect(api: Api) -> None:
    """The emulation sends what the provider's own tests assert it sends."""
    policy = await _policy(api, "Primary")
    status = {"url": URL, "monitor_type": "status"}
    sent = await _apply_monitor(
        api,
        [status, {**status, "domain_expiration": 7}, {**status, "domain_expiration": -1}],
    )
    assert sent == [
        {
            "expiration_policy_id": None,
            "url": URL,
            "monitor_type": "status",
            "http_method": "GET",
            "request_headers": None,
        },
        {"domain_expiration": 7, "expiration_policy_id": None},
        {"domain_expiration": None, "expiration_policy_id": None},
    ]
    sent = await _apply_monitor(api, [status, {**status, "expiration_policy_id": policy}])
    assert sent[1] == {"expiration_policy_id": policy}
    headers = await _apply_monitor(
        api,
        [
            {**status, "request_headers": [{"name": "A", "value": "1"}]},
            {**status, "request_headers": [{"name": "B", "value": "2"}]},
        ],
    )
    assert headers[1]["request_headers"][0] == {"name": "B", "value": "2"}
    assert headers[1]["request_headers"][1]["_destroy"] == "true"


def heartbeat_scenarios(policy: int, group: int) -> dict[str, list[dict[str, Any]]]:
    flags = {"call": False, "sms": True, "email": True, "push": True, "critical_alert": False}
    changed = {"call": True, "sms": False, "email": True, "push": True, "critical_alert": True}
    return {
        # TestResourceHeartbeat
        "flags, policy, period": [
            {"name": "example", "period": 30, "grace": 0, **flags},
            {"name": "example", "period": 31, "grace": 1, "policy_id": str(policy), **changed},
            {"name": "example", "period": 45, "grace": 1, "policy_id": str(policy), **changed},
            {"name": "example", "period": 45, "grace": 1, **changed},
        ],
        # TestResourceHeartbeatServerTimezone
        "server timezone": [
            {
                "name": "example",
                "period": 3600,
                "grace": 0,
                **flags,
                "server_timezone": "Europe/Berlin",
            },
            {
                "name": "example",
                "period": 3600,
                "grace": 0,
                **flags,
                "server_timezone": "America/New_York",
            },
            {"name": "example", "period": 3600, "grace": 0, **flags},
        ],
        # examples/resources/betteruptime_heartbeat/resource.tf
        "example simple": [{"name": "Simple heartbeat", "period": 3600, "grace": 300}],
        "example full": [
            {
                "name": "example.com heartbeat",
                "period": 3600,
                "grace": 300,
                "heartbeat_group_id": group,
                "server_timezone": "Europe/Berlin",
                "policy_id": str(policy),
                "team_wait": 180,
                "maintenance_from": "01:00:00",
                "maintenance_to": "03:00:00",
                "maintenance_days": ["sat", "sun"],
                "maintenance_timezone": "Berlin",
            },
            {
                "name": "example.com heartbeat",
                "period": 86400,
                "grace": 600,
                "server_timezone": "Eastern Time (US & Canada)",
                "maintenance_timezone": "Pacific Time (US & Canada)",
                "team_name": "acme",
            },
        ],
    }


@pytest.mark.parametrize("scenario", sorted(heartbeat_scenarios(1, 2)))
async def test_heartbeat_configurations_read_back_as_sent(api: Api, scenario: str) -> None:
    policy = await _policy(api, "Primary")
    group = int(data(await api.post(HEARTBEAT_GROUPS, {"name": "Jobs"}), 201)["id"])
    steps = heartbeat_scenarios(policy, group)[scenario]
    created = data(await api.post(HEARTBEATS, heartbeat_create(steps[0])), 201)
    path = f"{HEARTBEATS}/{created['id']}"
    state = heartbeat_state(created["attributes"])
    assert decodable(created["attributes"], HEARTBEAT_TYPES) == []
    assert heartbeat_plan(steps[0], state) == {}
    for new in steps[1:]:
        patched = data(await api.patch(path, heartbeat_update(new, state)))
        assert decodable(patched["attributes"], HEARTBEAT_TYPES) == []
        state = heartbeat_state(data(await api.get(path))["attributes"])
        assert heartbeat_plan({k: v for k, v in new.items() if k != "team_name"}, state) == {}
    assert (await api.delete(path)).status_code == 204


async def test_heartbeat_bodies_are_the_ones_its_tests_expect(api: Api) -> None:
    policy = await _policy(api, "Primary")
    base = {"name": "example", "period": 45, "grace": 1, "policy_id": str(policy)}
    created = data(await api.post(HEARTBEATS, heartbeat_create(base)), 201)
    state = heartbeat_state(created["attributes"])
    assert state["policy_id"] == str(policy)
    body = heartbeat_update({k: v for k, v in base.items() if k != "policy_id"}, state)
    assert body == {"policy_id": ""}  # "Understood as null by API"
    patched = data(await api.patch(f"{HEARTBEATS}/{created['id']}", body))
    assert patched["attributes"]["policy_id"] is None


async def test_a_short_period_clears_server_timezone(api: Api) -> None:
    body = {"name": "often", "period": 60, "grace": 0, "server_timezone": "Europe/Berlin"}
    created = data(await api.post(HEARTBEATS, body), 201)
    assert created["attributes"]["server_timezone"] is None


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (MONITORS, {"url": URL, "team_name": "someone-else"}),
        (HEARTBEATS, {"name": "x", "team_name": "someone-else"}),
        (MONITORS, {"url": URL, "policy_id": "12x"}),
        (HEARTBEATS, {"name": "x", "policy_id": "999"}),
        (MONITORS, {"url": URL, "expiration_policy_id": 999}),
        (MONITORS, {"url": URL, "ip_version": "ipv5"}),
        (MONITORS, {"url": URL, "http_method": "DELETE"}),
        (MONITORS, {"url": URL, "maintenance_timezone": "Gotham"}),
        (HEARTBEATS, {"name": "x", "period": 3600, "server_timezone": "Gotham"}),
        (MONITORS, {"url": URL, "monitor_type": "tcp", "port": "22,80"}),
        (MONITORS, {"url": URL, "environment_variables": {"A": "1"}}),
        (MONITORS, {"url": URL, "checks_version": 2}),
        (HEARTBEATS, {"name": "x", "checks_version": 2}),
    ],
)
async def test_what_the_hosted_api_refuses_stays_a_422(
    api: Api, path: str, body: dict[str, Any]
) -> None:
    response = await api.post(path, body)
    assert response.status_code == 422, response.text
    (name,) = {key for key in body if key not in ("url", "name", "monitor_type", "period")}
    assert name in response.json()["invalid_attributes"]


@pytest.mark.parametrize("path", [GROUPS, HEARTBEAT_GROUPS])
async def test_groups_take_the_tokens_team_name(api: Api, path: str) -> None:
    """betteruptime_monitor_group and betteruptime_heartbeat_group send team_name when set."""
    created = data(await api.post(path, {"name": "Production", "team_name": "acme"}), 201)
    assert created["attributes"]["team_name"] == "acme"
    group = f"{path}/{created['id']}"
    patched = data(await api.patch(group, {"paused": True, "team_name": "acme"}))
    assert patched["attributes"]["paused"] is True
    response = await api.post(path, {"name": "Theirs", "team_name": "another-team"})
    assert response.status_code == 422
    assert response.json()["invalid_attributes"] == ["team_name"]


async def test_rails_style_header_edits(api: Api) -> None:
    body = {
        "url": URL,
        "request_headers": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
    }
    created = data(await api.post(MONITORS, body), 201)
    path = f"{MONITORS}/{created['id']}"
    first, second = created["attributes"]["request_headers"]
    edit = [
        {"id": first["id"], "_destroy": "true"},
        {"id": second["id"], "name": "B", "value": "changed", "_destroy": "false"},
        {"name": "C", "value": "3"},
    ]
    headers = data(await api.patch(path, {"request_headers": edit}))["attributes"]
    assert [(h["id"], h["name"], h["value"]) for h in headers["request_headers"]] == [
        (second["id"], "B", "changed"),
        ("3", "C", "3"),
    ]
    for wrong in (
        [{"id": "99", "_destroy": "true"}],  # not a header of this monitor
        [{"_destroy": "true"}],  # which one?
        [{"id": second["id"], "_destroy": "true"}, {"id": second["id"], "name": "B", "value": "x"}],
        [{"name": "D"}],  # no value
        [{"id": second["id"], "_destroy": "maybe"}],
    ):
        response = await api.patch(path, {"request_headers": wrong})
        assert response.status_code == 422, (wrong, response.text)
        assert response.json()["invalid_attributes"] == ["request_headers"]
    unchanged = data(await api.get(path))["attributes"]["request_headers"]
    assert [h["name"] for h in unchanged] == ["B", "C"]
