"""Running one claimed check: its probe input (credentials decrypted in memory), its deadline
(the running itself is probes/running.py, which the probe agents share)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from watchpost.collectors.models import CollectorTarget
from watchpost.crypto import SecretBox
from watchpost.engine.checked_rows import MONITOR, TARGET, monitor_timeout_s
from watchpost.engine.claims import Claim
from watchpost.engine.located import LOCATED
from watchpost.maintenance_windows import maintenance_end
from watchpost.monitors.lists import port_text
from watchpost.monitors.models import Monitor
from watchpost.probes.base import ProbeResult
from watchpost.probes.monitors.check import Header, MonitorCheck
from watchpost.probes.running import RUNNERS, CheckInput, Runner, run_guarded
from watchpost.probes.targets.registry import target_settings

assert set(RUNNERS) == {MONITOR, TARGET}, "every kind of check has a runner"


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


DEFAULT_RUNNERS: Final = RUNNERS


async def run(job: Job, runner: Runner) -> ProbeResult | None:
    """The job's result (None in maintenance); never raises for a failing probe."""
    if job.input is None:
        return None
    what = f"{job.claim.kind} {job.claim.id}"
    return await run_guarded(job.input, job.timeout, runner, what=what)
