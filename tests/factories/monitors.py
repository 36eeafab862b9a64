"""Monitors: a minimal valid body per monitor type, sample field values, monitors and groups."""

from __future__ import annotations

from typing import Any, Final

from tests.factories.api import TEST_PASSWORD, Api, data

MONITORS: Final = "/api/v2/monitors"
GROUPS: Final = "/api/v2/monitor-groups"

MINIMAL: Final[dict[str, dict[str, Any]]] = {
    "status": {"monitor_type": "status", "url": "https://example.com"},
    "expected_status_code": {
        "monitor_type": "expected_status_code",
        "url": "https://example.com/health",
        "expected_status_codes": [200, 204],
    },
    "keyword": {
        "monitor_type": "keyword",
        "url": "https://example.com",
        "required_keyword": "Welcome",
    },
    "keyword_absence": {
        "monitor_type": "keyword_absence",
        "url": "https://example.com",
        "required_keyword": "Error",
    },
    "ping": {"monitor_type": "ping", "url": "example.com"},
    "tcp": {"monitor_type": "tcp", "url": "db.example.com", "port": "5432"},
    "udp": {"monitor_type": "udp", "url": "10.0.0.5", "port": "53", "required_keyword": "ok"},
    "smtp": {"monitor_type": "smtp", "url": "mail.example.com", "port": "587"},
    "pop": {"monitor_type": "pop", "url": "mail.example.com", "port": "995"},
    "imap": {"monitor_type": "imap", "url": "mail.example.com", "port": "993"},
    "dns": {"monitor_type": "dns", "url": "1.1.1.1", "request_body": "example.com"},
    "playwright": {"monitor_type": "playwright", "url": "Homepage scenario"},
}

# A valid value of every type-dependent field.
SAMPLE: Final[dict[str, Any]] = {
    "required_keyword": "hello",
    "port": "8080",
    "http_method": "post",
    "request_body": "example.org",
    "request_headers": [{"name": "X-Test", "value": "1"}],
    "expected_status_codes": [200],
    "follow_redirects": False,
    "verify_ssl": False,
    "remember_cookies": True,
    "auth_username": "user",
    "auth_password": TEST_PASSWORD,
    "ssl_expiration": 14,
    "playwright_script": "test('home', async ({ page }) => {});",
    "environment_variables": {"EMAIL": "ops@example.com"},
}


async def create_monitor(api: Api, monitor_type: str = "status", **fields: Any) -> dict[str, Any]:
    return data(await api.post(MONITORS, {**MINIMAL[monitor_type], **fields}), 201)


async def create_monitor_group(api: Api, **fields: Any) -> dict[str, Any]:
    return data(await api.post(GROUPS, {"name": "Production", **fields}), 201)
