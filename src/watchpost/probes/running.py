"""Running a check's probe input to a result within its deadline: the part the check engine
and the probe agents share. Nothing here reads a database, so an agent loads only this and
the probes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Final

from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.errors import scrub
from watchpost.probes.monitors.check import UNSUPPORTED, MonitorCheck
from watchpost.probes.monitors.registry import PROBES, extra_probes
from watchpost.probes.targets.registry import probe_target
from watchpost.probes.targets.settings import TargetSettings

log = logging.getLogger(__name__)

GUARD_S: Final = 2.0
"""A probe that overruns its own deadline by this much is cut off."""

CheckInput = MonitorCheck | TargetSettings
Runner = Callable[[CheckInput, float], Awaitable[ProbeResult]]


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


RUNNERS: Final[dict[str, Runner]] = {
    "monitor": run_monitor_check,
    "collector_target": run_target_check,
}
"""The runner of each kind of check (the kinds of engine/checked_rows.py)."""


async def run_guarded(
    check: CheckInput, timeout: float, runner: Runner, *, what: str
) -> ProbeResult:
    """The check's result; never raises for a failing or misbehaving probe. `what` names the
    check in the log."""
    watch = Stopwatch()
    try:
        async with asyncio.timeout(timeout + GUARD_S):
            return await runner(check, timeout)
    except TimeoutError:
        return failure(watch, f"check did not finish within {timeout:g} seconds")
    except Exception as exc:
        message = scrub(f"{type(exc).__name__}: {exc}", check.secrets)
        log.warning("%s: probe raised %s", what, message)
        return failure(watch, f"check failed unexpectedly: {message}")
