"""Monitor checks: the input every monitor probe gets, and the probe of each monitor_type.

The check engine maps a Monitor row to a MonitorCheck (password decrypted, request_timeout
converted to seconds: HTTP types store seconds, the others milliseconds), then runs
PROBES[monitor_type] with timeout=settings.timeout, plus the extra probes of extra_probes()
(certificate and domain expiration) when the monitor asks for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from watchpost.probes import certificate, mail, network, ping, resolver, web
from watchpost.probes.base import Probe as _Probe
from watchpost.probes.base import ProbeResult, Stopwatch, failure


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


UNSUPPORTED = "unsupported"
"""details key of a result that is no verdict on the monitor (the check cannot run here)."""


async def playwright(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Browser checks need a browser runtime, which this server does not ship."""
    return failure(
        Stopwatch(),
        "playwright checks are not supported: no browser runtime configured",
        **{UNSUPPORTED: "playwright"},
    )


async def domain_expiration(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Never a made-up number: without a WHOIS/RDAP source there is nothing to read."""
    return failure(
        Stopwatch(),
        "domain expiration checks are not supported: no data source configured",
        **{UNSUPPORTED: "domain_expiration"},
    )


Probe = _Probe[MonitorCheck]

PROBES: Mapping[str, Probe] = {
    "status": web.http_check,
    "expected_status_code": web.http_check,
    "keyword": web.http_check,
    "keyword_absence": web.http_check,
    "ping": ping.ping,
    "tcp": network.tcp,
    "udp": network.udp,
    "smtp": mail.smtp,
    "pop": mail.pop,
    "imap": mail.imap,
    "dns": resolver.dns_lookup,
    "playwright": playwright,
}
"""The probe of each monitor_type."""


def extra_probes(settings: MonitorCheck) -> dict[str, Probe]:
    """The expiration probes the monitor asked for, by the attribute that asked."""
    extra: dict[str, Probe] = {}
    if settings.ssl_expiration is not None:
        extra["ssl_expiration"] = certificate.ssl_expiration
    if settings.domain_expiration is not None:
        extra["domain_expiration"] = domain_expiration
    return extra
