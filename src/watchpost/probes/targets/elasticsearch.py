"""Elasticsearch: GET /_cluster/health; green and yellow pass, red fails."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, Final

from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import Address, excerpt
from watchpost.probes.targets.common import (
    CheckFailed,
    Reading,
    http_get,
    numbers,
    run_check,
    url_host,
)

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 9200
HEALTH_PATH: Final = "/_cluster/health"
PASSING: Final = frozenset({"green", "yellow"})
STATUSES: Final = PASSING | {"red"}
"""The statuses of cluster health: an answer with another is not cluster health."""
HEALTH_METRICS: Final = (
    "number_of_nodes",
    "number_of_data_nodes",
    "active_shards",
    "relocating_shards",
    "initializing_shards",
    "unassigned_shards",
)


def auth_headers(settings: TargetSettings) -> dict[str, str]:
    """An API key wins over a username and password when both are set."""
    if settings.api_key:
        return {"Authorization": f"ApiKey {settings.api_key}"}
    if settings.username or settings.password:
        pair = f"{settings.username or ''}:{settings.password or ''}".encode()
        return {"Authorization": "Basic " + base64.b64encode(pair).decode()}
    return {}


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = Address(settings.host, settings.port or DEFAULT_PORT)
    url = f"{settings.scheme or 'http'}://{url_host(address.host)}:{address.port}{HEALTH_PATH}"

    async def check() -> Reading:
        # 408 and 503 are how the health API says "timed out" / "red", with a body.
        response = await http_get(
            url,
            address=address,
            timeout=timeout,
            headers=auth_headers(settings),
            accept_statuses=frozenset({408, 503}),
        )
        try:
            health: Any = response.json()
            status = health["status"]
            if status not in STATUSES:
                raise ValueError(status)
        except (ValueError, KeyError, TypeError):
            raise CheckFailed(
                f"{HEALTH_PATH} on {address} did not answer with cluster health"
            ) from None
        metrics = numbers(health, HEALTH_METRICS)
        if status not in PASSING:
            unassigned = int(metrics.get("unassigned_shards", 0))
            raise CheckFailed(
                f"cluster {excerpt(health.get('cluster_name', ''))} is {status}"
                f" ({unassigned} unassigned shards)"
            )
        details = {
            "cluster_status": status,
            "cluster_name": excerpt(health.get("cluster_name", "")),
        }
        return Reading(metrics=metrics, details=details)

    return await run_check(settings, timeout=timeout, address=address, check=check)
