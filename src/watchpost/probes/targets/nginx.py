"""nginx: the stub_status page, at http://{listen_ip or host}:{port or 80}/nginx_status."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from watchpost.probes.base import ProbeResult
from watchpost.probes.targets.common import (
    CheckFailed,
    Reading,
    http_get,
    run_check,
    service_address,
    url_host,
)

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 80
STATUS_PATH: Final = "/nginx_status"
STUB_STATUS: Final = re.compile(
    r"Active connections:\s*(?P<active>\d+)\s+"
    r"server accepts handled requests\s+(?P<accepts>\d+)\s+(?P<handled>\d+)\s+(?P<requests>\d+)\s+"
    r"Reading:\s*(?P<reading>\d+)\s+Writing:\s*(?P<writing>\d+)\s+Waiting:\s*(?P<waiting>\d+)"
)


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = service_address(settings, DEFAULT_PORT)
    url = f"http://{url_host(address.host)}:{address.port}{STATUS_PATH}"

    async def check() -> Reading:
        response = await http_get(url, address=address, timeout=timeout)
        match = STUB_STATUS.search(response.text)
        if match is None:
            raise CheckFailed(f"{STATUS_PATH} on {address} is not an nginx stub_status page")
        metrics = {name: float(value) for name, value in match.groupdict().items()}
        return Reading(metrics=metrics, details={"url": url})

    return await run_check(settings, timeout=timeout, address=address, check=check)
