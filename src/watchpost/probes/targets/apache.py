"""Apache httpd: mod_status, at http://{listen_ip or host}:{port or 80}/server-status?auto."""

from __future__ import annotations

from typing import Final

from watchpost.probes.errors import Address
from watchpost.probes.targets.common import CheckFailed, Reading, status_page_probe

DEFAULT_PORT: Final = 80
STATUS_PATH: Final = "/server-status?auto"
STATUS_METRICS: Final[dict[str, str]] = {
    "Total Accesses": "total_accesses",
    "Total kBytes": "total_kbytes",
    "BusyWorkers": "busy_workers",
    "IdleWorkers": "idle_workers",
    "ReqPerSec": "req_per_sec",
    "BytesPerSec": "bytes_per_sec",
    "ConnsTotal": "conns_total",
    "Uptime": "uptime",
}


def parse_status(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


def read_status(text: str, address: Address, url: str) -> Reading:
    fields = parse_status(text)
    if "BusyWorkers" not in fields:
        raise CheckFailed(f"/server-status on {address} is not an Apache mod_status page")
    metrics: dict[str, float] = {}
    for key, name in STATUS_METRICS.items():
        try:
            metrics[name] = float(fields[key])
        except (KeyError, ValueError):
            continue
    details = {"url": url, "server_version": fields.get("ServerVersion", "")}
    return Reading(metrics=metrics, details=details)


probe: Final = status_page_probe(DEFAULT_PORT, STATUS_PATH, read_status)
