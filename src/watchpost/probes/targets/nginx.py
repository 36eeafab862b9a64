"""nginx: the stub_status page, at http://{listen_ip or host}:{port or 80}/nginx_status."""

from __future__ import annotations

import re
from typing import Final

from watchpost.probes.errors import Address
from watchpost.probes.targets.common import CheckFailed, Reading, status_page_probe

DEFAULT_PORT: Final = 80
STATUS_PATH: Final = "/nginx_status"
STUB_STATUS: Final = re.compile(
    r"Active connections:\s*(?P<active>\d+)\s+"
    r"server accepts handled requests\s+(?P<accepts>\d+)\s+(?P<handled>\d+)\s+(?P<requests>\d+)\s+"
    r"Reading:\s*(?P<reading>\d+)\s+Writing:\s*(?P<writing>\d+)\s+Waiting:\s*(?P<waiting>\d+)"
)


def read_stub_status(text: str, address: Address, url: str) -> Reading:
    match = STUB_STATUS.search(text)
    if match is None:
        raise CheckFailed(f"{STATUS_PATH} on {address} is not an nginx stub_status page")
    metrics = {name: float(value) for name, value in match.groupdict().items()}
    return Reading(metrics=metrics, details={"url": url})


probe: Final = status_page_probe(DEFAULT_PORT, STATUS_PATH, read_stub_status)
