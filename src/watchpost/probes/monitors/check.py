"""What a monitor probe gets.

The check engine maps a Monitor row to a MonitorCheck (password decrypted, request_timeout
converted to seconds: HTTP types store seconds, the others milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass, field


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

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(s for s in (self.auth_password,) if s)
