"""Prometheus scrape endpoint: GET the endpoint URL, parse the text exposition format."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client.parser import text_string_to_metric_families
from yarl import URL

from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import Address, reason
from watchpost.probes.targets.common import CheckFailed, Reading, http_get, run_check

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    endpoint = settings.endpoint or ""
    url = URL(endpoint)
    address = Address(url.host or settings.host, url.port or (443 if url.scheme == "https" else 80))

    async def check() -> Reading:
        response = await http_get(endpoint, address=address, timeout=timeout)
        families = samples = 0
        try:
            for family in text_string_to_metric_families(response.text):
                families += 1
                samples += len(family.samples)
        except Exception as exc:
            raise CheckFailed(
                f"{endpoint} is not in the Prometheus text format ({reason(exc)})"
            ) from None
        if samples == 0:
            raise CheckFailed(f"{endpoint} answered with no metrics")
        return Reading(metrics={"families": float(families), "samples": float(samples)})

    return await run_check(settings, timeout=timeout, address=address, check=check)
