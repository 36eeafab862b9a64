"""The dispatch table and the checks that cannot run here (no made-up results)."""

from __future__ import annotations

from watchpost.probes.monitors.check import UNSUPPORTED, MonitorCheck
from watchpost.probes.monitors.registry import PROBES, domain_expiration

MONITOR_TYPES = {
    "status", "expected_status_code", "keyword", "keyword_absence", "ping", "tcp", "udp",
    "smtp", "pop", "imap", "dns", "playwright",
}  # fmt: skip


def test_every_monitor_type_has_a_probe() -> None:
    assert set(PROBES) == MONITOR_TYPES


async def test_domain_expiration_is_not_faked() -> None:
    settings = MonitorCheck(monitor_type="status", url="https://example.com/", domain_expiration=30)
    result = await domain_expiration(settings, timeout=1.0)
    assert not result.ok
    assert result.error == "domain expiration checks are not supported: no data source configured"
    assert result.metrics == {}
    assert result.details == {UNSUPPORTED: "domain_expiration"}


def test_password_not_in_repr() -> None:
    settings = MonitorCheck(monitor_type="status", url="https://x/", auth_password="s3cret-value")
    assert "s3cret-value" not in repr(settings)
