"""What a monitor probe gets.

The check engine maps a Monitor row to a MonitorCheck (password decrypted, request_timeout
converted to seconds: HTTP types store seconds, the others milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass, field

UNSUPPORTED = "unsupported"
"""details key of a result that is no verdict on the monitor (the check cannot run here)."""


@dataclass(frozen=True)
class Header:
    name: str
    value: str


@dataclass(frozen=True)
class MonitorCheck:
    """Everything one check of a monitor needs, credentials decrypted (in memory only)."""

    monitor_type: str
    url: str
    timeout: float = 30.0
    """request_timeout in seconds, whatever unit the monitor stores it in."""
    required_keyword: str | None = None
    port: str | None = None
    http_method: str = "get"
    request_body: str | None = None
    request_headers: tuple[Header, ...] = ()
    expected_status_codes: tuple[int, ...] = ()
    follow_redirects: bool = True
    verify_ssl: bool = True
    remember_cookies: bool = False
    auth_username: str | None = None
    auth_password: str | None = field(default=None, repr=False)
    ssl_expiration: int | None = None
    """Days; the certificate check fails when fewer remain. None disables it."""
    domain_expiration: int | None = None
    """Days; None disables it."""
    playwright_script: str | None = field(default=None, repr=False)
    environment_variables: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """A playwright monitor's variables (name, value), its script's `process.env`."""

    @property
    def secrets(self) -> tuple[str, ...]:
        values = (self.auth_password, *(value for _, value in self.environment_variables))
        return tuple(s for s in values if s)
