"""The probe of each monitor_type, and the expiration probes a monitor may ask for.

The check engine runs PROBES[monitor_type] with timeout=settings.timeout, plus the extra
probes of extra_probes() (certificate and domain expiration) when the monitor asks for them.
"""

from __future__ import annotations

from collections.abc import Mapping

from watchpost.probes.base import Probe as _Probe
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.monitors import browser, certificate, mail, network, ping, resolver, web
from watchpost.probes.monitors.check import UNSUPPORTED, MonitorCheck


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
    "playwright": browser.playwright,
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
