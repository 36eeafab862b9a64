"""Running one claimed check: its probe input (credentials decrypted in memory), its deadline."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime

from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.target_kinds import KINDS as TARGET_KINDS
from watchpost.crypto import SecretBox
from watchpost.engine.checked_rows import MONITOR, TARGET, monitor_timeout_s
from watchpost.engine.claims import Claim
from watchpost.engine.located import LOCATED
from watchpost.maintenance_windows import maintenance_end
from watchpost.monitors.lists import port_text
from watchpost.monitors.models import Monitor
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.errors import scrub
from watchpost.probes.monitors.check import UNSUPPORTED, Header, MonitorCheck
from watchpost.probes.monitors.registry import PROBES, extra_probes
from watchpost.probes.targets import registry as target_probes
from watchpost.probes.targets.registry import probe_target, target_settings
from watchpost.probes.targets.settings import TargetSettings

log = logging.getLogger(__name__)

GUARD_S = 2.0
"""A probe that overruns its own deadline by this much is cut off by the engine."""

CheckInput = MonitorCheck | TargetSettings
assert set(target_probes.PROBES) == set(TARGET_KINDS), "every collector target kind has a probe"
Runner = Callable[[CheckInput, float], Awaitable[ProbeResult]]


@dataclass(frozen=True)
class Job:
    """A claim made ready to run: what to probe and for how long (or nothing, in maintenance)."""

    claim: Claim
    timeout: float
    input: CheckInput | None
    maintenance_until: datetime | None = None


@dataclass(frozen=True)
class Outcome:
    """A finished job: what the writer applies to the row, if the lease still holds."""

    claim: Claim
    finished_at: datetime
    result: ProbeResult | None
    """None when no check ran (maintenance window)."""
    maintenance_until: datetime | None = None


def monitor_check(monitor: Monitor, box: SecretBox) -> MonitorCheck:
    """The probe input of a monitor, its password decrypted (in memory only)."""
    return MonitorCheck(
        monitor_type=monitor.monitor_type,
        url=monitor.url,
        timeout=monitor_timeout_s(monitor),
        required_keyword=monitor.required_keyword,
        port=port_text(monitor.port, monitor.port_list),
        http_method=monitor.http_method or "get",
        request_body=monitor.request_body,
        request_headers=tuple(
            Header(name=h["name"], value=h["value"]) for h in monitor.request_headers or []
        ),
        expected_status_codes=tuple(monitor.expected_status_codes or ()),
        follow_redirects=monitor.follow_redirects is not False,
        verify_ssl=monitor.verify_ssl is not False,
        remember_cookies=bool(monitor.remember_cookies),
        auth_username=monitor.auth_username,
        auth_password=(
            box.decrypt(monitor.auth_password_encrypted)
            if monitor.auth_password_encrypted
            else None
        ),
        ssl_expiration=monitor.ssl_expiration,
        domain_expiration=monitor.domain_expiration,
        playwright_script=monitor.playwright_script,
        environment_variables=tuple(
            (str(name), str(value)) for name, value in (monitor.environment_variables or {}).items()
        ),
    )


def prepare(claim: Claim, *, box: SecretBox, timeout: float, now: datetime) -> Job:
    """The job of a claim; a monitor inside its maintenance window gets no probe."""
    if claim.kind in (MONITOR, LOCATED):
        monitor: Monitor = claim.row
        until = maintenance_end(monitor, now)
        if until is not None:
            return Job(claim=claim, timeout=timeout, input=None, maintenance_until=until)
        return Job(claim=claim, timeout=timeout, input=monitor_check(monitor, box))
    target: CollectorTarget = claim.row
    return Job(claim=claim, timeout=timeout, input=target_settings(target, box))


async def run_monitor_check(check: CheckInput, timeout: float) -> ProbeResult:
    """The monitor type's probe plus the expiration probes it asked for; all must pass."""
    assert isinstance(check, MonitorCheck)
    if check.port is not None and "," in check.port:
        # A mail monitor on several ports ("25,465,587"): each is checked at once, all must
        # answer.
        results = await asyncio.gather(
            *(
                run_monitor_check(replace(check, port=port.strip()), timeout)
                for port in check.port.split(",")
            )
        )
        return next((result for result in results if not result.ok), results[0])
    probes = [PROBES[check.monitor_type], *extra_probes(check).values()]
    main, *extras = await asyncio.gather(*(probe(check, timeout=timeout) for probe in probes))
    if UNSUPPORTED in main.details or not main.ok:
        return main
    for extra in extras:
        if not extra.ok and UNSUPPORTED not in extra.details:
            return ProbeResult(
                ok=False, latency_ms=main.latency_ms, error=extra.error, details=main.details
            )
    return main


async def run_target_check(check: CheckInput, timeout: float) -> ProbeResult:
    assert isinstance(check, TargetSettings)
    return await probe_target(check, timeout=timeout)


DEFAULT_RUNNERS: dict[str, Runner] = {MONITOR: run_monitor_check, TARGET: run_target_check}


async def run(job: Job, runner: Runner) -> ProbeResult | None:
    """The job's result; never raises for a failing or misbehaving probe."""
    if job.input is None:
        return None
    watch = Stopwatch()
    try:
        async with asyncio.timeout(job.timeout + GUARD_S):
            return await runner(job.input, job.timeout)
    except TimeoutError:
        return failure(watch, f"check did not finish within {job.timeout:g} seconds")
    except Exception as exc:
        message = scrub(f"{type(exc).__name__}: {exc}", job.input.secrets)
        log.warning("%s %s: probe raised %s", job.claim.kind, job.claim.id, message)
        return failure(watch, f"check failed unexpectedly: {message}")
