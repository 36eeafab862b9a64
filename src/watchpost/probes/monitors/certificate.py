"""The ssl_expiration settings: days until the server certificate's notAfter.

Only the date is judged here, so the certificate is read without verification (a monitor
with verify_ssl on reports an untrusted certificate through its own check).
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from contextlib import suppress
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from watchpost import outbound
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.monitors.common import ConfigError, network_failure, target

if TYPE_CHECKING:
    from watchpost.probes.monitors.check import MonitorCheck

SECONDS_PER_DAY = 86400.0


@functools.cache
def _reading_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def days_left(not_after: datetime, now: datetime) -> float:
    return (not_after - now).total_seconds() / SECONDS_PER_DAY


async def ssl_expiration(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Connects with TLS to the host (port from url or `port`, else 443) and reads notAfter."""
    watch = Stopwatch()
    try:
        where = target(settings, 443)
        async with asyncio.timeout(timeout):
            _, writer = await outbound.open_connection(
                where.host, where.port, ssl=_reading_context(), server_hostname=where.host
            )
            try:
                tls = writer.get_extra_info("ssl_object")
                der = tls.getpeercert(binary_form=True) if tls is not None else None
            finally:
                writer.close()
                with suppress(OSError, ssl.SSLError):
                    await writer.wait_closed()
    except ConfigError as exc:
        return failure(watch, str(exc))
    except OSError as exc:
        doing = f"waiting for the TLS handshake with {where}"
        return network_failure(watch, exc, where, timeout=timeout, doing=doing)
    if not der:
        return failure(watch, f"{where} sent no certificate")
    from cryptography import x509  # ≈ 8 MB resident: loaded by the first of these checks

    not_after = x509.load_der_x509_certificate(der).not_valid_after_utc
    left = days_left(not_after, datetime.now(UTC))
    details = {"not_after": not_after.isoformat()}
    metrics = {"ssl_days_left": round(left, 3)}
    threshold = settings.ssl_expiration
    if left < 0:
        error = f"certificate expired {int(-left)} days ago ({not_after:%Y-%m-%d})"
    elif threshold is not None and left < threshold:
        error = (
            f"certificate expires in {int(left)} days ({not_after:%Y-%m-%d}), less than {threshold}"
        )
    else:
        return ProbeResult(ok=True, latency_ms=watch.ms(), metrics=metrics, details=details)
    return ProbeResult(
        ok=False, latency_ms=watch.ms(), error=error, metrics=metrics, details=details
    )
